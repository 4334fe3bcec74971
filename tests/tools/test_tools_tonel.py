"""
Tests for L{gsmcpd.tools.tonel}: Tonel out of the simulated stone seeded
with the C{Banking} code, the difference edited files make, and the files
loaded back, through the dispatcher.
"""

from twisted.internet.defer import fail, inlineCallbacks

from gsmcpd.tools import confirm, tonel
from gsmcpd.tools.base import ANY_SESSION, OWN_SESSION, ToolError
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.ledger import methodKey
from tests.toolharness import ToolHarness
from tests.tools.test_tools_mutation import WITHDRAW, MutationTestCase

TOOLSETS = ("browsing", "execution", "mutation", "session", "testing",
            "tonel")

ACCOUNT_PATH = "Banking-Core/Account.class.st"
SAVINGS_PATH = "Banking-Core/SavingsAccount.class.st"

DEPOSIT = "\tbalance := balance + amount\n"
CHECKED_DEPOSIT = ("\tamount <= 0 ifTrue: [^self error: 'deposit ]['].\n"
                   "\tbalance := balance + amount\n")

LOAN = """Class {
\t#name : 'Loan',
\t#superclass : 'Account',
\t#instVars : [
\t\t'rate'
\t],
\t#classVars : [
\t\t'Rates'
\t],
\t#classInstVars : [
\t\t'count'
\t],
\t#category : 'Banking-Core'
}

{ #category : 'accessing' }
Loan >> rate [
\t^rate
]
"""


class TonelTestCase(MutationTestCase):
    """A client of a freshly seeded stone, served the tonel toolset."""

    def setUp(self):
        self.harness = ToolHarness(TOOLSETS)

    @inlineCallbacks
    def exported(self, harness=None, **arguments):
        result = yield self.succeed("export_tonel", harness,
                                    **(arguments or {"className": "Account"}))
        return result["structuredContent"]

    @inlineCallbacks
    def files(self, harness=None):
        """The files of Account's export, by path."""
        found = yield self.exported(harness)
        return {each["path"]: each["content"] for each in found["files"]}

    @inlineCallbacks
    def changes(self, files, harness=None):
        result = yield self.succeed("diff_tonel", harness, files=[
            {"path": path, "content": content}
            for path, content in files.items()])
        return result["structuredContent"]["changes"]

    def load(self, files, harness=None, **arguments):
        return (harness or self.harness).call("load_tonel", files=[
            {"path": path, "content": content}
            for path, content in files.items()], **arguments)

    @inlineCallbacks
    def withoutSavings(self):
        """Banking-Core's export, its package file included, without
        SavingsAccount's file."""
        found = yield self.exported(category="Banking-Core")
        files = {each["path"]: each["content"] for each in found["files"]}
        self.assertIn("Banking-Core/package.st", files)
        del files[SAVINGS_PATH]
        return files

    def source(self, className, selector, meta=False, harness=None):
        method = self.code(harness).method(className, selector, meta)
        return None if method is None else method.source


class ExportTests(TonelTestCase):

    def test_sessions(self):
        """Reading runs on any session; loading needs one's own (2026: a
        handle)."""
        tools = self.harness.tools
        self.assertEqual([tools.get(name).runsOn for name in
                          ("export_tonel", "diff_tonel", "load_tonel")],
                         [ANY_SESSION, ANY_SESSION, OWN_SESSION])

    @inlineCallbacks
    def test_account(self):
        """
        Account as Rowan lays a package out: its class file, its comment,
        header and methods, class side first; not its package's file,
        which says the files hold the whole package.
        """
        files = yield self.files()
        self.assertEqual(list(files), [ACCOUNT_PATH])
        account = files[ACCOUNT_PATH]
        self.assertTrue(account.startswith(
            "\"\nI hold the balance of one owner's money; deposits and "
            "withdrawals change it.\n\"\nClass {\n\t#name : 'Account',\n"
            "\t#superclass : 'Object',\n\t#instVars : [\n\t\t'balance',\n"
            "\t\t'owner'\n\t],\n\t#category : 'Banking-Core'\n}\n\n"
            "{ #category : 'instance creation' }\nAccount class >> new [\n"
            "\t^super new initialize\n]\n"), account)
        self.assertIn("\n{ #category : 'operations' }\nAccount >> deposit: "
                      "amount [\n" + DEPOSIT + "]\n", account)
        selectors = [line.split(">> ")[1] for line in account.splitlines()
                     if ">> " in line]
        self.assertEqual(selectors, [
            "new [", "owner: aString [", "balance [", "deposit: amount [",
            "initialize [", "owner [", "setOwner: aString [",
            "withdraw: amount ["])

    @inlineCallbacks
    def test_dictionaryPaged(self):
        """
        A dictionary pages by class files, each page with the package
        files of the packages it holds whole, and says where the next one
        starts.
        """
        first = yield self.exported(dictionary="Banking", limit=2)
        self.assertEqual([each["path"] for each in first["files"]], [
            ACCOUNT_PATH,
            "Banking-Tests/package.st", "Banking-Tests/AccountTest.class.st"])
        self.assertEqual((first["total"], first["nextOffset"]), (3, 2))
        counted = yield self.exported(dictionary="Banking", limit=0)
        self.assertEqual((counted["files"], counted["total"],
                          counted["nextOffset"]), ([], 3, None))
        rest = yield self.exported(dictionary="Banking", offset=2)
        self.assertEqual([each["path"] for each in rest["files"]], [
            "Banking-Core/SavingsAccount.class.st"])
        self.assertIsNone(rest["nextOffset"])

    @inlineCallbacks
    def test_eachClassOnce(self):
        """A class bound under another name too is exported once, under
        its own."""
        yield self.succeed("execute_code",
                           code="(System myUserProfile symbolList objectNamed:"
                           " #Banking) at: #Acct put: Account")
        found = yield self.exported(dictionary="Banking")
        self.assertEqual(found["total"], 3)

    @inlineCallbacks
    def test_pageEndsAtItsSize(self):
        """
        A page ends early once it holds enough source, and says where the
        next starts; a diff reads every class its files name all the same.
        """
        self.patch(tonel, "PAGE_SOURCE", 10)
        first = yield self.exported(dictionary="Banking")
        self.assertEqual([each["path"] for each in first["files"]],
                         [ACCOUNT_PATH])
        self.assertEqual((first["total"], first["nextOffset"]), (3, 1))
        whole = yield self.exported(dictionary="Banking", offset=1)
        self.assertEqual(whole["nextOffset"], 2)
        found = yield self.changes({
            each["path"]: each["content"] for each in first["files"]
            + whole["files"]})
        self.assertEqual(found, [])

    @inlineCallbacks
    def test_extensions(self):
        """
        A category's methods in other classes (its extension category) are
        its package's extension files, not their own classes' methods; an
        unedited one diffs as no change, an edited one as its change.
        """
        yield self.succeed("compile_method", className="AccountTest",
                           source="isBanking\n\t^true",
                           category="*banking-core")
        yield self.succeed("compile_method", className="AccountTest",
                           source="isOther\n\t^true", category="*other")
        core = yield self.exported(category="Banking-Core")
        files = {each["path"]: each["content"] for each in core["files"]}
        path = "Banking-Core/AccountTest.extension.st"
        self.assertEqual(list(files)[-1], path)
        self.assertEqual(files[path], (
            "Extension {\n\t#name : 'AccountTest'\n}\n\n"
            "{ #category : '*banking-core' }\n"
            "AccountTest >> isBanking [\n\t^true\n]\n"))
        later = yield self.exported(category="Banking-Core", offset=1)
        self.assertEqual([each["path"] for each in later["files"]], [
            "Banking-Core/SavingsAccount.class.st"])
        tests = yield self.exported(category="Banking-Tests")
        self.assertNotIn("isBanking", tests["files"][1]["content"])
        self.assertEqual((yield self.changes(files)), [])
        files[path] = files[path].replace("^true", "^false")
        found = yield self.changes(files)
        self.assertEqual([(c["className"], c["selector"], c["change"])
                          for c in found],
                         [("AccountTest", "isBanking", "changed")])
        template = self.harness.tools.toolsets[-1].resourceTemplates()[0]
        uri = f"gemstone://tonel/{path}"
        read = yield template.read(self.call(), uri, **template.match(uri))
        self.assertEqual(read[0]["text"], core["files"][-1]["content"])

    @inlineCallbacks
    def extend(self):
        """Two extension methods: a test class's in Banking-Core, and
        Account's, class side, in Banking-Tests."""
        yield self.succeed("compile_method", className="AccountTest",
                           source="isBanking\n\t^true",
                           category="*banking-core")
        yield self.succeed("compile_method", className="Account", meta=True,
                           source="sample\n\t^self owner: 'test'",
                           category="*Banking-Tests")

    @inlineCallbacks
    def test_dictionaryAndClassExtensions(self):
        """
        A dictionary's export holds its packages' extension files, and a
        class's export the extension files of its own methods, each in
        its package; unedited, they diff as no change.
        """
        yield self.extend()
        found = yield self.exported(dictionary="Banking")
        files = {each["path"]: each["content"] for each in found["files"]}
        self.assertEqual(list(files), [
            "Banking-Core/package.st", ACCOUNT_PATH, SAVINGS_PATH,
            "Banking-Core/AccountTest.extension.st",
            "Banking-Tests/package.st", "Banking-Tests/AccountTest.class.st",
            "Banking-Tests/Account.extension.st"])
        self.assertEqual(files["Banking-Tests/Account.extension.st"], (
            "Extension {\n\t#name : 'Account'\n}\n\n"
            "{ #category : '*Banking-Tests' }\n"
            "Account class >> sample [\n\t^self owner: 'test'\n]\n"))
        self.assertNotIn("isBanking",
                         files["Banking-Tests/AccountTest.class.st"])
        self.assertEqual((yield self.changes(files)), [])
        test = yield self.exported(className="AccountTest")
        self.assertEqual([each["path"] for each in test["files"]], [
            "Banking-Tests/package.st", "Banking-Tests/AccountTest.class.st",
            "Banking-Core/AccountTest.extension.st"])
        self.assertEqual(test["files"][2]["content"],
                         files["Banking-Core/AccountTest.extension.st"])

    @inlineCallbacks
    def test_dictionaryExtendsOtherDictionaries(self):
        """A dictionary's export holds its packages' methods in classes
        of other dictionaries too."""
        yield self.succeed("compile_class_definition", className="Widget")
        yield self.succeed("compile_method", className="Widget",
                           source="isBanking\n\t^true",
                           category="*banking-core")
        found = yield self.exported(dictionary="Banking")
        self.assertEqual([each["path"] for each in found["files"]][3],
                         "Banking-Core/Widget.extension.st")

    @inlineCallbacks
    def test_category(self):
        found = yield self.exported(category="Banking-Core")
        self.assertEqual([each["path"] for each in found["files"]], [
            "Banking-Core/package.st", ACCOUNT_PATH,
            "Banking-Core/SavingsAccount.class.st"])

    @inlineCallbacks
    def test_oneScope(self):
        for arguments in ({}, {"className": "Account", "category": "x"}):
            yield self.refused("export_tonel", "invalidParams", **arguments)
        yield self.refused("export_tonel", "notFound", className="Acount")
        yield self.refused("export_tonel", "notFound", dictionary="Bankng")

    @inlineCallbacks
    def test_resource(self):
        """Each file is also a resource."""
        files = yield self.files()
        template = self.harness.tools.toolsets[-1].resourceTemplates()[0]
        for path, content in files.items():
            uri = f"gemstone://tonel/{path}"
            read = yield template.read(self.call(), uri,
                                       **template.match(uri))
            self.assertEqual(read, [{"uri": uri, "mimeType": "text/plain",
                                     "text": content}])

    def call(self):
        from gsmcpd.tools.base import ToolCall
        return ToolCall(self.harness.gem)


class DiffTests(TonelTestCase):

    @inlineCallbacks
    def test_unedited(self):
        """An unedited export is no change, byte for byte."""
        files = yield self.files()
        found = yield self.changes(files)
        self.assertEqual(found, [])

    @inlineCallbacks
    def test_oneMethodEdited(self):
        """One method edited in the file: exactly that change, with its
        unified diff."""
        files = yield self.files()
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            DEPOSIT, CHECKED_DEPOSIT)
        found = yield self.changes(files)
        self.assertEqual([(c["className"], c["change"], c["selector"],
                           c["meta"], c["path"]) for c in found],
                         [("Account", "changed", "deposit:", False,
                           ACCOUNT_PATH)])
        self.assertIn("\n+\tamount <= 0 ifTrue: [^self error: 'deposit "
                      "]['].\n", found[0]["diff"])
        self.assertTrue(found[0]["diff"].startswith(
            f"--- stone/{ACCOUNT_PATH}\n+++ {ACCOUNT_PATH}\n"))

    @inlineCallbacks
    def test_addedRemovedDefinition(self):
        """A method gone from the file is removed, a new one added, an
        edited header a changed definition."""
        files = yield self.files()
        text = files[ACCOUNT_PATH].replace("\t\t'owner'\n", "\t\t'owner',\n"
                                           "\t\t'limit'\n")
        text = text.replace("{ #category : 'accessing' }\nAccount >> owner "
                            "[\n\t^owner\n]\n", "{ #category : 'accessing' }"
                            "\nAccount >> limit [\n\t^limit\n]\n")
        files[ACCOUNT_PATH] = text
        found = yield self.changes(files)
        self.assertEqual([(c["change"], c["selector"]) for c in found], [
            ("changed", None), ("added", "limit"), ("removed", "owner")])

    @inlineCallbacks
    def test_classFileDeleted(self):
        """
        A class whose file is gone from its package's files (their
        package.st says they are the whole package) is removed; a class's
        own export, without its package's file, removes no other class.
        """
        files = yield self.withoutSavings()
        found = yield self.changes(files)
        self.assertEqual([(c["className"], c["change"], c["selector"],
                           c["path"]) for c in found],
                         [("SavingsAccount", "removed", None, SAVINGS_PATH)])
        self.assertIn("\n-\t#name : 'SavingsAccount',\n", found[0]["diff"])
        account = yield self.files()
        self.assertEqual((yield self.changes(account)), [])

    @inlineCallbacks
    def test_notTonel(self):
        """Files that are not Tonel: each error at its file, line and
        column."""
        result = yield self.harness.call("diff_tonel", files=[
            {"path": "P/A.class.st", "content": "Class {\n\t#name 'A'\n}\n"},
            {"path": "P/B.class.st", "content": "Klass {}"}])
        error = result["structuredContent"]["error"]
        self.assertEqual(error["kind"], "compileError")
        self.assertEqual(error["errors"], [
            {"path": "P/A.class.st", "line": 2, "column": 8,
             "message": "expected ':'"},
            {"path": "P/B.class.st", "line": 1, "column": 1,
             "message": "expected Package, Class or Extension"}])


class LoadTests(TonelTestCase):

    @inlineCallbacks
    def test_editedMethodLoads(self):
        """
        load_tonel compiles the one edited method, uncommitted; a second
        export is byte-identical to the edited file.
        """
        files = yield self.files()
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            DEPOSIT, CHECKED_DEPOSIT)
        result = yield self.load(files)
        self.assertEqual(result["content"][0]["text"],
                         "1 change:\nchanged Account>>deposit:")
        self.assertEqual(self.source("Account", "deposit:"),
                         "deposit: amount\n" + CHECKED_DEPOSIT.rstrip("\n"))
        again = yield self.files()
        self.assertEqual(again, files)
        other = self.harness.newClient()
        self.assertNotIn("ifTrue:", self.source("Account", "deposit:",
                                                harness=other))
        nothing = yield self.changes(files)
        self.assertEqual(nothing, [])

    @inlineCallbacks
    def test_loadReadsNothingForTheAgent(self):
        """
        A load does not count as the agent reading the stone: a method it
        left alone still needs get_method_source before delete_method;
        the method it compiled from the files is read.
        """
        files = yield self.files()
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            DEPOSIT, CHECKED_DEPOSIT)
        yield self.load(files)
        ledger = self.harness.session.ledger
        self.assertIsNone(ledger.lastRead(methodKey("Account", "owner")))
        self.assertEqual(ledger.lastRead(methodKey("Account", "deposit:")),
                         self.source("Account", "deposit:"))
        message = yield self.refused("delete_method", className="Account",
                                     selector="owner")
        self.assertIn("get_method_source", message)
        self.assertIsNotNone(self.source("Account", "owner"))

    @inlineCallbacks
    def test_newClass(self):
        """A new class in a file loads as a new class, in the dictionary of
        its package's classes."""
        files = yield self.files()
        files["Banking-Core/Loan.class.st"] = LOAN
        result = yield self.load(files)
        self.assertEqual(result["content"][0]["text"],
                         "2 changes:\nadded class Loan\nadded Loan>>rate")
        info = self.code().classNamed("Loan")
        self.assertEqual(info.dictionary, "Banking")
        self.assertEqual((info.superclassName, info.instVarNames,
                          info.classVars, info.classInstVars, info.category),
                         ("Account", ("rate",), ("Rates",), ("count",),
                          "Banking-Core"))
        again = yield self.exported(className="Loan")
        self.assertEqual(again["files"], [
            {"path": "Banking-Core/Loan.class.st", "content": LOAN}])

    @inlineCallbacks
    def test_baseRefusesNewerCommit(self):
        """
        With the base of an older export, and another session's newer
        commit of the same method, load_tonel refuses and the newer
        method stays.
        """
        exported = yield self.exported()
        files = {each["path"]: each["content"] for each in exported["files"]}
        other = self.harness.newClient()
        yield self.succeed("get_method_source", other, className="Account",
                           selector="deposit:")
        newer = "deposit: amount\n\tbalance := balance + amount abs"
        yield self.succeed("compile_method", other, className="Account",
                           source=newer)
        yield self.succeed("commit", other)
        yield self.succeed("abort")
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            DEPOSIT, CHECKED_DEPOSIT)
        kind, message = yield self.harness.error(
            "load_tonel", files=[{"path": p, "content": c}
                                 for p, c in files.items()],
            base=exported["base"])
        self.assertEqual(kind, "refused")
        self.assertIn("Account>>deposit:", message)
        self.assertEqual(self.source("Account", "deposit:"), newer)

    @inlineCallbacks
    def test_baseRefusesPuttingBackAnOlderMethod(self):
        """
        Another session's newer commit of a method the agent did not
        edit still refuses the load: the files hold the exported
        version, which the load would put back over the newer one.
        """
        exported = yield self.exported()
        files = {each["path"]: each["content"] for each in exported["files"]}
        other = self.harness.newClient()
        yield self.succeed("get_method_source", other, className="Account",
                           selector="withdraw:")
        yield self.succeed("compile_method", other, className="Account",
                           source=WITHDRAW + " abs")
        yield self.succeed("commit", other)
        yield self.succeed("abort")
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            DEPOSIT, CHECKED_DEPOSIT)
        # The files still hold the older withdraw:, which a load would
        # put back: the base refuses that too.
        kind, _ = yield self.harness.error(
            "load_tonel", files=[{"path": p, "content": c}
                                 for p, c in files.items()],
            base=exported["base"])
        self.assertEqual(kind, "refused")
        self.assertEqual(self.source("Account", "withdraw:"),
                         WITHDRAW + " abs")

    @inlineCallbacks
    def test_baseAllowsUnrelatedCommit(self):
        """
        Another session's commit of what the load would not overwrite (a
        new method the files lack, which is kept) does not refuse it.
        """
        exported = yield self.exported()
        files = {each["path"]: each["content"] for each in exported["files"]}
        other = self.harness.newClient()
        yield self.succeed("compile_method", other, className="Account",
                           source="limit\n\t^0", category="accessing")
        yield self.succeed("commit", other)
        yield self.succeed("abort")
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            DEPOSIT, CHECKED_DEPOSIT)
        loaded = yield self.succeed(
            "load_tonel", files=[{"path": p, "content": c}
                                 for p, c in files.items()],
            base=exported["base"])
        self.assertEqual(loaded["structuredContent"], {
            "changes": [loaded["structuredContent"]["changes"][0]],
            "kept": ["Account>>limit"]})
        self.assertIn("ifTrue:", self.source("Account", "deposit:"))
        self.assertEqual(self.source("Account", "limit"), "limit\n\t^0")

    @inlineCallbacks
    def test_compileErrorChangesNothing(self):
        """
        A method the stone refuses: nothing changes, the other edited
        method included, and the error is told at its file, line and
        column.
        """
        files = yield self.files()
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            DEPOSIT, CHECKED_DEPOSIT).replace(
            "\tbalance := 0\n", "\tbalance := undeclared\n")
        before = self.source("Account", "deposit:")
        result = yield self.load(files)
        error = result["structuredContent"]["error"]
        self.assertEqual(error["kind"], "compileError")
        line = files[ACCOUNT_PATH].splitlines().index(
            "\tbalance := undeclared") + 1
        self.assertEqual([(e["path"], e["line"], e["column"])
                          for e in error["errors"]],
                         [(ACCOUNT_PATH, line, 13)])
        self.assertEqual(self.source("Account", "deposit:"), before)
        self.assertEqual(self.source("Account", "initialize"),
                         "initialize\n\tbalance := 0")

    @inlineCallbacks
    def test_syntaxErrorSendsNothing(self):
        files = yield self.files()
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            "\tbalance := 0\n", "\tbalance := := 0\n")
        sent = len(self.harness.gem.sources)
        result = yield self.load(files)
        error = result["structuredContent"]["error"]
        line = files[ACCOUNT_PATH].splitlines().index(
            "\tbalance := := 0") + 1
        self.assertEqual([(e["line"], e["column"]) for e in error["errors"]],
                         [(line, 13)])
        self.assertEqual(len(self.harness.gem.sources), sent + 1)

    @inlineCallbacks
    def test_removeMissing(self):
        """A method missing from the files is kept, unless removeMissing."""
        files = yield self.files()
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            "\n{ #category : 'accessing' }\nAccount >> owner [\n\t^owner\n]\n",
            "")
        kept = yield self.load(files)
        self.assertEqual(kept["structuredContent"],
                         {"changes": [], "kept": ["Account>>owner"]})
        self.assertIsNotNone(self.source("Account", "owner"))
        removed = yield self.load(files, removeMissing=True)
        self.assertEqual([c["change"] for c in removed["structuredContent"][
            "changes"]], ["removed"])
        self.assertIsNone(self.source("Account", "owner"))
        self.assertIsNone(self.harness.session.ledger.lastRead(
            methodKey("Account", "owner", False)))


class ClassRemovalTests(TonelTestCase):

    @inlineCallbacks
    def test_keptUnlessRemoveMissing(self):
        """
        A class the package's files lack is kept, and said to be, unless
        removeMissing; then it is removed, uncommitted.
        """
        files = yield self.withoutSavings()
        kept = yield self.load(files)
        self.assertEqual(kept["structuredContent"],
                         {"changes": [], "kept": ["class SavingsAccount"]})
        self.assertIn("kept (not in the files; removeMissing removes it): "
                      "class SavingsAccount", kept["content"][0]["text"])
        self.assertIsNotNone(self.code().classNamed("SavingsAccount"))
        removed = yield self.load(files, removeMissing=True)
        self.assertEqual(removed["content"][0]["text"],
                         "1 change:\nremoved class SavingsAccount")
        self.assertIsNone(self.code().classNamed("SavingsAccount"))
        other = self.harness.newClient()
        self.assertIsNotNone(self.code(other).classNamed("SavingsAccount"))

    def methods(self, className):
        """A class's methods, both sides: their sources and categories."""
        code = self.code()
        return {(meta, selector): (each.source, each.category)
                for meta in (False, True)
                for selector, each in code.methods(className, meta).items()}

    @inlineCallbacks
    def test_removalTakenBack(self):
        """
        A load that fails after removing a class puts it back as it was:
        its dictionary, comment and methods.
        """
        files = yield self.withoutSavings()
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            "\tbalance := 0\n", "\tbalance := undeclared\n")
        before = self.code().classNamed("SavingsAccount")
        methods = self.methods("SavingsAccount")
        result = yield self.load(files, removeMissing=True)
        self.assertEqual(result["structuredContent"]["error"]["kind"],
                         "compileError")
        after = self.code().classNamed("SavingsAccount")
        self.assertEqual((after.dictionary, after.superclassName,
                          after.instVarNames, after.comment, after.category),
                         (before.dictionary, before.superclassName,
                          before.instVarNames, before.comment,
                          before.category))
        self.assertEqual(self.methods("SavingsAccount"), methods)

    @inlineCallbacks
    def test_superclassWithSubclassRefused(self):
        """
        The stone removes no class that has subclasses: a package's files
        without a superclass whose subclass stays fail at that file and
        change nothing.
        """
        found = yield self.exported(category="Banking-Core")
        files = {each["path"]: each["content"] for each in found["files"]}
        del files[ACCOUNT_PATH]
        result = yield self.load(files, removeMissing=True)
        error = result["structuredContent"]["error"]
        self.assertEqual(error["kind"], "compileError")
        self.assertEqual([(e["path"], e["line"]) for e in error["errors"]],
                         [(ACCOUNT_PATH, 1)])
        self.assertIsNotNone(self.code().classNamed("Account"))


class ConfirmTests(TonelTestCase):
    """With C{confirmDestructive}, a load that removes methods asks."""

    def setUp(self):
        self.harness = ToolHarness(TOOLSETS, tools=ToolCatalog.named(
            TOOLSETS, {"tonel": {"confirmDestructive": True}}))
        self.asked = []

        def confirmed(call, message, what):
            self.asked.append(message)
            return fail(ToolError("refused", f"Not confirmed: {what}"))
        self.patch(confirm, "confirmed", confirmed)

    @inlineCallbacks
    def test_removalAsks(self):
        """
        Removing a method the files lack asks first, naming it; refused,
        nothing changes.  A load that removes nothing does not ask.
        """
        files = yield self.files()
        self.assertTrue(self.harness.tools.get("load_tonel").streams)
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            "\n{ #category : 'accessing' }\nAccount >> owner [\n\t^owner\n]\n",
            "").replace(DEPOSIT, CHECKED_DEPOSIT)
        kept = yield self.load(files)
        self.assertEqual(kept["structuredContent"]["kept"], ["Account>>owner"])
        self.assertEqual(self.asked, [])
        files[ACCOUNT_PATH] = files[ACCOUNT_PATH].replace(
            CHECKED_DEPOSIT, DEPOSIT)
        result = yield self.load(files, removeMissing=True)
        self.assertEqual(result["structuredContent"]["error"]["kind"],
                         "refused")
        self.assertEqual(self.asked, [
            "Load these files, removing the methods they lack?\n"
            "- Account>>owner"])
        self.assertIsNotNone(self.source("Account", "owner"))
        self.assertIn("ifTrue:", self.source("Account", "deposit:"))

    @inlineCallbacks
    def test_classRemovalAsks(self):
        """Removing a class the package's files lack asks first, naming
        it."""
        files = yield self.withoutSavings()
        result = yield self.load(files, removeMissing=True)
        self.assertEqual(result["structuredContent"]["error"]["kind"],
                         "refused")
        self.assertEqual(self.asked, [
            "Load these files, removing the classes they lack?\n"
            "- class SavingsAccount"])
        self.assertIsNotNone(self.code().classNamed("SavingsAccount"))


class RoundTripTests(TonelTestCase):

    @inlineCallbacks
    def test_intoAStoneWithoutThePackage(self):
        """
        Export, load into a stone without the package, export again: the
        same files, byte for byte.
        """
        exported = yield self.exported(dictionary="Banking")
        for className in ("AccountTest", "SavingsAccount", "Account"):
            yield self.succeed("get_class_definition", className=className)
            yield self.succeed("delete_class", className=className)
        yield self.succeed("commit")
        self.assertIsNone(self.code().classNamed("Account"))
        loaded = yield self.succeed("load_tonel", files=exported["files"])
        self.assertEqual(
            [c["className"] for c in loaded["structuredContent"]["changes"]
             if c["selector"] is None],
            ["Account", "SavingsAccount", "AccountTest"])
        core = yield self.exported(category="Banking-Core")
        tests = yield self.exported(category="Banking-Tests")
        self.assertEqual(core["files"] + tests["files"], exported["files"])
        self.assertEqual(self.code().classNamed("Account").dictionary,
                         "UserGlobals")


    @inlineCallbacks
    def test_extensionsIntoAStoneWithoutThePackage(self):
        """A dictionary's export with extension files round trips byte
        for byte too."""
        yield ExportTests.extend(self)
        exported = yield self.exported(dictionary="Banking")
        for className in ("AccountTest", "SavingsAccount", "Account"):
            yield self.succeed("get_class_definition", className=className)
            yield self.succeed("delete_class", className=className)
        yield self.succeed("commit")
        yield self.succeed("load_tonel", files=exported["files"])
        core = yield self.exported(category="Banking-Core")
        tests = yield self.exported(category="Banking-Tests")
        self.assertEqual(core["files"] + tests["files"], exported["files"])


class DefinitionLoadTests(TonelTestCase):

    TEST_PATH = "Banking-Tests/AccountTest.class.st"

    @inlineCallbacks
    def edited(self):
        """AccountTest's files, its header given a variable and a new
        comment."""
        found = yield self.exported(className="AccountTest")
        files = {each["path"]: each["content"] for each in found["files"]}
        files[self.TEST_PATH] = files[self.TEST_PATH].replace(
            "\t\t'account'\n", "\t\t'account',\n\t\t'other'\n").replace(
            "Tests of Account.", "Tests of Account, edited.")
        return files

    @inlineCallbacks
    def test_definitionAndComment(self):
        """A changed header redefines the class and sets its comment; the
        export is the file."""
        files = yield self.edited()
        result = yield self.load(files)
        self.assertEqual(result["content"][0]["text"],
                         "1 change:\nchanged class AccountTest")
        info = self.code().classNamed("AccountTest")
        self.assertEqual(info.instVarNames, ("account", "other"))
        self.assertTrue(info.comment.startswith("Tests of Account, edited."))
        again = yield self.exported(className="AccountTest")
        self.assertEqual(again["files"][1]["content"], files[self.TEST_PATH])

    @inlineCallbacks
    def test_undone(self):
        """
        A method the stone refuses takes back the class's redefinition
        and comment, and a new class, too.
        """
        files = yield self.edited()
        files[self.TEST_PATH] = files[self.TEST_PATH].replace(
            "\taccount deposit: 5.\n", "\tnoSuchVariable deposit: 5.\n")
        files["Banking-Core/Loan.class.st"] = LOAN
        before = self.code().classNamed("AccountTest")
        result = yield self.load(files)
        self.assertEqual(result["structuredContent"]["error"]["kind"],
                         "compileError")
        after = self.code().classNamed("AccountTest")
        self.assertEqual((after.instVarNames, after.comment),
                         (before.instVarNames, before.comment))
        self.assertIsNone(self.code().classNamed("Loan"))
        found = yield self.changes(files)
        self.assertEqual(len(found), 4)

    @inlineCallbacks
    def test_droppedMethodUndoes(self):
        """
        A header that takes away a variable unchanged methods use: they
        would not survive the new version, so the load fails naming them
        and changes nothing.
        """
        found = yield self.exported(className="AccountTest")
        files = {each["path"]: each["content"] for each in found["files"]}
        files[self.TEST_PATH] = files[self.TEST_PATH].replace(
            "\t#instVars : [\n\t\t'account'\n\t],\n", "")
        before = self.source("AccountTest", "setUp")
        result = yield self.load(files)
        error = result["structuredContent"]["error"]
        self.assertEqual(error["kind"], "compileError")
        lines = files[self.TEST_PATH].splitlines()
        self.assertEqual(error["errors"][:2], [
            {"path": self.TEST_PATH, "line": 1, "column": 1,
             "message": "the new definition of AccountTest loses 4 methods "
                        "the files do not change (each told at its place)"},
            {"path": self.TEST_PATH,
             "line": lines.index("\taccount := Account owner: 'ann'") + 1,
             "column": 2, "message": "AccountTest>>setUp would not compile "
             "in the new definition: undefined symbol  account"}])
        self.assertEqual(len(error["errors"]), 5)
        self.assertEqual(self.code().classNamed("AccountTest").instVarNames,
                         ("account",))
        self.assertEqual(self.source("AccountTest", "setUp"), before)
        changed = yield self.changes(files)
        self.assertEqual([c["change"] for c in changed], ["changed"])
