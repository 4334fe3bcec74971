"""
The code a simulated stone starts with, committed before anyone logs in, so
the browsing, search, compile and test tools have something to work on:

  - C{UserGlobals}: the global C{AppName} and the class C{Greeter};
  - C{Banking} (second in the symbol list): C{Account}, its subclass
    C{SavingsAccount}, and C{AccountTest}, whose C{testDeposit} passes,
    C{testWithdrawTooMuch} fails (C{withdraw:} allows an overdraft) and
    C{testBroken} is an error (it divides by zero).
"""

from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.testing.simulator.objects import String
from gsmcpd.testing.simulator.repository import Transaction
from gsmcpd.testing.simulator.system import USER_GLOBALS, globalKey

# (class, superclass, instVarNames, dictionary, category, comment)
CLASSES = [
    ("Greeter", "Object", (), "UserGlobals", "Demo",
     "I greet whoever runs the demo, by the application's name."),
    ("Account", "Object", ("balance", "owner"), "Banking", "Banking-Core",
     "I hold the balance of one owner's money; deposits and withdrawals change it."),
    ("SavingsAccount", "Account", ("rate",), "Banking", "Banking-Core",
     "An Account that earns interest at a rate in percent."),
    ("AccountTest", "TestCase", ("account",), "Banking", "Banking-Tests",
     "Tests of Account. testWithdrawTooMuch fails until withdraw: refuses overdrafts."),
]

# (class, class side?, category, source)
METHODS = [
    ("Greeter", False, "greeting", "greet\n\t^'Hello from ', AppName"),
    ("Account", True, "instance creation", "new\n\t^super new initialize"),
    ("Account", True, "instance creation",
     "owner: aString\n\t^self new setOwner: aString"),
    ("Account", False, "initialization", "initialize\n\tbalance := 0"),
    ("Account", False, "private", "setOwner: aString\n\towner := aString"),
    ("Account", False, "accessing", "balance\n\t^balance"),
    ("Account", False, "accessing", "owner\n\t^owner"),
    ("Account", False, "operations", "deposit: amount\n\tbalance := balance + amount"),
    ("Account", False, "operations",
     "withdraw: amount\n\t\"Overdrafts are not checked: AccountTest>>testWithdrawTooMuch "
     "says they should be.\"\n\tbalance := balance - amount"),
    ("SavingsAccount", False, "accessing", "rate: aNumber\n\trate := aNumber"),
    ("SavingsAccount", False, "operations",
     "interest\n\t^self balance * (rate ifNil: [0]) / 100"),
    ("AccountTest", False, "running", "setUp\n\taccount := Account owner: 'ann'"),
    ("AccountTest", False, "tests",
     "testDeposit\n\taccount deposit: 5.\n\tself assert: account balance equals: 5"),
    ("AccountTest", False, "tests",
     "testWithdrawTooMuch\n\t\"Withdrawing more than the balance must leave it alone.\"\n"
     "\taccount deposit: 10.\n\taccount withdraw: 25.\n"
     "\tself assert: account balance equals: 10"),
    ("AccountTest", False, "tests",
     "testBroken\n\tself assert: account balance / 0 = 0"),
]


class SeedSession:
    """
    The part of a session the model needs, for a transaction no user owns.
    """

    def __init__(self, transaction):
        self.transaction = transaction


def install(repository):
    """
    Commit the seeded code and globals into an empty C{repository}.
    """
    transaction = Transaction(repository, repository.commitNumber)
    code = CodeModel(SeedSession(transaction))
    code.addDictionary("Banking", index=2)
    transaction.write(globalKey(USER_GLOBALS, "AppName"), String("demo"))
    for name, superclass, instVarNames, dictionary, category, comment in CLASSES:
        code.defineClass(name, superclass, instVarNames, dictionary=dictionary,
                         category=category)
        code.setComment(name, comment)
    for className, meta, category, source in METHODS:
        code.compileMethod(className, source, category, meta=meta)
    if not transaction.commit():
        raise AssertionError("seeding an empty repository cannot conflict")
