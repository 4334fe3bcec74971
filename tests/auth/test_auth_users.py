"""
From the user claim to the GemStone user: the mapping file.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.auth.users import UserMap, UserMapError


class UserMapTests(SynchronousTestCase):
    def write(self, text):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_mappedAndPassedThrough(self):
        users = UserMap.read(self.write('{"alice@example.com": "Alice"}'))
        self.assertEqual(users.userFor("alice@example.com"), "Alice")
        self.assertEqual(users.userFor("Bob"), "Bob")

    def test_malformed(self):
        self.assertRaises(UserMapError, UserMap.read,
                          self.write('{"alice": 7}'))
        self.assertRaises(UserMapError, UserMap.read, self.write("["))
        self.assertRaises(UserMapError, UserMap.read, self.mktemp())
