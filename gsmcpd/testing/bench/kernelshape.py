"""
The shape of the simulated stone's kernel-sized repository
(L{gsmcpd.testing.simulator.kernelrepo}) beside the measured GemStone
Smalltalk it is modelled on: C{python -m gsmcpd.testing.bench.kernelshape}
builds it and prints JSON, C{"repository"} and C{"real"} (the measured figures,
L{kernelrepo.REAL}).

It reports classes, methods, the class side (in all, the most one class
has and which), selectors, the share of selectors with one implementor and
percentiles of implementors per selector, percentiles of source length,
and how many class and method categories there are.
"""

import argparse
import collections
import json
import statistics
import sys

from gsmcpd.testing.simulator import kernelrepo, searches
from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.testing.simulator.stone import Stone


def percentile(ordered, share):
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def shape(code):
    """
    The figures of the repository C{code} (a L{CodeModel}) sees.
    """
    methods = [each for found in searches.indexOf(code).implementors.values() for each in found]
    classes = [info for info in code.allClasses() if info.dictionary == "Globals"]
    classSide = collections.Counter(each.className for each in methods if each.meta)
    implementors = sorted(collections.Counter(each.selector for each in methods).values())
    lengths = sorted(len(each.source) for each in methods)
    largest, most = classSide.most_common(1)[0]
    return {
        "classes": len(classes), "methods": len(methods),
        "classSide": sum(classSide.values()), "classSideMost": most,
        "classSideLargest": largest, "selectors": len(implementors),
        "oneImplementor": implementors.count(1) / len(implementors),
        "implementorsMedian": percentile(implementors, 0.5),
        "implementorsP90": percentile(implementors, 0.9),
        "implementorsP99": percentile(implementors, 0.99),
        "implementorsMax": implementors[-1],
        "sourceMean": statistics.mean(lengths),
        "sourcePercentiles": {str(share): percentile(lengths, share)
                              for share in (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)},
        "classCategories": len({info.category for info in classes}),
        "methodCategories": len({each.category for each in methods}),
        "namedGenerated": sum(info.name.startswith("Generated") for info in classes),
        "sessionTempsSuperclass": code.classInfo("SessionTemps").superclassName,
    }


def measure(fraction=1.0):
    stone = Stone(repository=kernelrepo.repository(fraction))
    code = CodeModel(stone.login("DataCurator", "swordfish"))
    return {"repository": shape(code), "real": kernelrepo.REAL}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m gsmcpd.testing.bench.kernelshape",
        description="the kernel-sized repository's shape beside a measured kernel's")
    parser.add_argument("--fraction", type=float, default=1.0,
                        help="the repository's size, as a fraction of the full one")
    options = parser.parse_args(argv)
    json.dump(measure(options.fraction), sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
