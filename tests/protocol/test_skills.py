"""
Skills: GemStone working guides as C{skill://} resources.
"""

import hashlib
import json
import re

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.modern.skills import Skill, Skills
from gsmcpd.protocol.jsonrpc import INVALID_PARAMS, JsonRpcError

SKILL = Skill("gemstone-commit-or-abort",
              "When to commit: and when not to.", "# Commit\n\nText.\n")


def frontmatter(manifest):
    """
    The frontmatter of a C{SKILL.md} as this server writes it: a plain
    name, a double-quoted (JSON) description.
    """
    match = re.match(r"---\nname: (.*)\ndescription: (.*)\n---\n\n",
                     manifest.decode("utf-8"))
    return {"name": match.group(1), "description": json.loads(match.group(2))}


class SkillTests(SynchronousTestCase):

    def test_manifest(self):
        manifest = SKILL.manifest()
        self.assertEqual(frontmatter(manifest), {
            "name": "gemstone-commit-or-abort",
            "description": "When to commit: and when not to."})
        self.assertTrue(manifest.endswith(b"# Commit\n\nText.\n"))

    def test_entry(self):
        """
        The entry's frontmatter is the file's, and its one resource carries
        the file's SHA-256 and size.
        """
        manifest = SKILL.manifest()
        entry = SKILL.entry()
        self.assertEqual(entry["uri"],
                         "skill://gemstone-commit-or-abort/SKILL.md")
        self.assertEqual(entry["frontmatter"], frontmatter(manifest))
        self.assertEqual(entry["resources"], [{
            "uri": entry["uri"],
            "digest": "sha256:" + hashlib.sha256(manifest).hexdigest(),
            "size": len(manifest)}])

    def test_resource(self):
        self.assertEqual(SKILL.descriptor(), {
            "uri": SKILL.uri, "name": SKILL.name,
            "description": SKILL.description, "mimeType": "text/markdown"})
        [contents] = SKILL.contents()
        self.assertEqual(contents["text"].encode("utf-8"), SKILL.manifest())


class SkillsTests(SynchronousTestCase):

    def setUp(self):
        self.skills = Skills([SKILL])

    def test_list(self):
        self.assertEqual(self.skills.list({}), {"skills": [SKILL.entry()]})
        error = self.assertRaises(JsonRpcError, self.skills.list,
                                  {"cursor": "2"})
        self.assertEqual(error.code, INVALID_PARAMS)

    def test_get(self):
        self.assertEqual(self.skills.get({"uri": SKILL.uri}),
                         {"skill": SKILL.entry()})
        for uri in ("skill://nope/SKILL.md", None):
            error = self.assertRaises(JsonRpcError, self.skills.get,
                                      {"uri": uri})
            self.assertEqual(error.code, INVALID_PARAMS)

    def test_empty(self):
        self.assertFalse(Skills([]))
        self.assertTrue(self.skills)
