"""
The SUnit templates: the test classes, and runs of their tests.
"""

from gsmcpd.testing.simulator.handlers import codeModel, handler


@handler("list_test_classes")
def listTestClasses(ev, args):
    return codeModel(ev).testClasses()


def _understands(model, className, selector):
    """
    Whether the class or a superclass defines C{selector} (instance side).
    """
    info = model.classNamed(className)
    while info is not None:
        if model.method(info.name, selector) is not None:
            return True
        info = model.classNamed(info.superclassName) if info.superclassName else None
    return False


def _entry(outcome):
    entry = {"className": outcome.className, "selector": outcome.selector,
             "status": outcome.status}
    if outcome.status != "passed":
        entry.update(exceptionClass=outcome.exceptionClass,
                     description=outcome.description)
    return entry


@handler("run_test_class")
def runTestClass(ev, args):
    model = codeModel(ev)
    testClasses = set(model.testClasses())
    classNames, selector = args["classNames"], args["selector"]
    unknownClasses, unknownMethods, notTestCases, cases = [], [], [], []
    if classNames is None:
        classNames = sorted(testClasses)
    else:   # the package's argument reader leaves a literal Array as one
        classNames = [each.text for each in classNames.items]
    for name in classNames:
        if model.classNamed(name) is None:
            unknownClasses.append(name)
        elif name not in testClasses:
            notTestCases.append(name)
        elif selector is None:
            cases.extend((name, each) for each in model.testSelectors(name))
        elif _understands(model, name, selector):
            cases.append((name, selector))
        else:
            unknownMethods.append(f"{name}>>{selector}")
    run, tests = 0, []
    if args["listOnly"]:
        tests = [{"className": className, "selector": each}
                 for className, each in cases]
    elif not (unknownClasses or unknownMethods or notTestCases):
        for className, each in cases:
            entry = _entry(model.runTest(className, each))
            run += 1
            if not (args["failingOnly"] and entry["status"] == "passed"):
                tests.append(entry)
    return {"unknownClasses": unknownClasses, "unknownMethods": unknownMethods,
            "notTestCases": notTestCases, "run": run, "tests": tests}
