"""
The simulated stone's stack as GemStone's process reflection shows it:
C{GsProcess _frameContentsAt:} over the evaluator's own stack
(L{gsmcpd.testing.simulator.evaluator.Evaluator.stack}), and the GsNMethod
selectors that make a frame's ip a line.

A frame's contents are GemStone's Array (MagLev's C{GsProcess.gs} names
the slots): 1 the GsNMethod, 2 its ip, 3 the frame's offset, 4-7 the VM's
own, 8 C{self}, 9 the argument and temporary names, 10 the receiver (for a
block frame, the block: the stricter reading), then the argument and
temporary values.  Level 1 is the frame that sent C{_frameContentsAt:}.  A
method's frame also names a VM temporary (C{.t1}) it holds no value for,
as GemStone's may, and a block's frame one it holds nil in (Grail's and
jgfoster/vscode-gemstone's readers skip such names, and read no value past
the Array's end): a reader must do both.

An ip is not a step point, nor a step point a source offset: a template
must convert each (C{_previousStepPointForIp:}, C{_lineNumberForStep:}),
as on a real stone.
"""

from gsmcpd.testing.simulator import errors, steppoints
from gsmcpd.testing.simulator.kernel import (
    CLASSES,
    SmalltalkMethod,
    StClass,
    classMethod,
    classOf,
    method,
)
from gsmcpd.testing.simulator.objects import ActiveMethod, Array, Symbol, UserClass

FIRST_IP = 24
"""The model's ip of a method's first step; each source character after
it is two more."""

_KERNEL_METHODS = {}


def frameContents(ev, level, stack=None):
    """
    GemStone's Array for the frame C{level} below the sender of
    C{_frameContentsAt:} (or, of a stopped process's C{stack}, its frame
    C{level} from the top), or nil beyond the stack.
    """
    skip = 1 if stack is None else 0
    stack = ev.stack if stack is None else stack
    if not isinstance(level, int) or isinstance(level, bool):
        raise errors.argumentTypeError("_frameContentsAt:")
    if level < 1 or level + skip > len(stack):
        return None
    entry = stack[-skip - level]
    if isinstance(entry, tuple):
        function, receiver, args, selector = entry
        names = [f"arg{index}" for index in range(1, len(args) + 1)]
        return _contents(kernelMethod(ev, function, receiver, selector), FIRST_IP,
                         len(stack) - level, receiver, names, receiver, list(args))
    root = entry
    while root.parent is not None:
        root = root.parent
    receiver = entry.home.receiver
    names = list(entry.names)
    values = list(entry.names.values())
    if entry.block is not None:
        # The VM's own temporary, named and holding a value, as a reader
        # must leave out by its name alone.
        names.append(".t1")
        values.append(None)
    elif entry.home.method is not None:
        # The VM's own evaluation temporary, named but with no value: the
        # stricter reading of "the kernel names those '.t1', '.t2', ..."
        # and of values that may be fewer than the names.
        names.append(".t1")
    return _contents(activeMethod(ev, entry), FIRST_IP + 2 * (root.origin + entry.at),
                     len(stack) - level, receiver, names,
                     receiver if entry.block is None else entry.block, values)


def _contents(gsMethod, ip, offset, self, names, receiver, values):
    return Array([gsMethod, ip, offset, None, 0, None, None, self,
                  Array([Symbol(each) for each in names]), receiver, *values])


def activeMethod(ev, frame):
    """
    The GsNMethod C{frame} runs: its doit's, its method's, or the block's
    (one per block of that method).
    """
    home = frame.home
    if home.compiled is None:
        info = home.method
        if info is None:
            home.compiled = ActiveMethod(None, None, home.source or "")
        else:
            home.compiled = ev.compiledMethods.get(info)
            if home.compiled is None:
                home.compiled = ev.compiledMethods[info] = ActiveMethod(
                    _behaviorOf(ev, info), info.selector, info.source)
    if frame.block is None:
        return home.compiled
    node = frame.block.node
    blocks = home.compiled.blocks
    found = blocks.get(id(node))
    if found is None:
        found = blocks[id(node)] = ActiveMethod(
            home.compiled.behavior, home.compiled.selector, home.compiled.source,
            home=home.compiled, node=node)
    return found


def _behaviorOf(ev, info):
    """
    The class a method is in: for a user's, its class's present version,
    the one object its instances' C{class} answers.
    """
    if isinstance(info, SmalltalkMethod):
        kernel = CLASSES[info.className]
        return kernel.metaclass if info.meta else kernel
    try:
        version = ev.code.classInfo(info.className).version
    except errors.SmalltalkError:
        version = None
    return UserClass(info.className, meta=info.meta, version=version)


def kernelMethod(ev, function, receiver, selector):
    """
    The GsNMethod of a kernel primitive: the model has no Smalltalk source
    for it, so its source is its selector's pattern.
    """
    behavior = next((each for each in ev.behaviors(classOf(receiver))
                     if isinstance(each, StClass) and each.methods.get(selector) is function),
                    classOf(receiver))
    key = (behavior.name, selector)
    found = _KERNEL_METHODS.get(key)
    if found is None:
        found = _KERNEL_METHODS[key] = ActiveMethod(
            behavior, selector, f'{_pattern(selector)}\n\t"a primitive of the simulated stone"')
    return found


def _pattern(selector):
    if ":" not in selector:
        return selector if selector[0].isalpha() or selector[0] == "_" else f"{selector} arg1"
    keywords = selector.split(":")[:-1]
    return " ".join(f"{each}: arg{index}" for index, each in enumerate(keywords, 1))


def _source(gsMethod):
    if isinstance(gsMethod, ActiveMethod):
        return gsMethod.source
    raise errors.messageNotUnderstood("GsNMethod", "_lineNumberForStep:")


@classMethod("GsProcess", "_frameContentsAt:")
def _frameContentsAt(ev, receiver, level):
    return frameContents(ev, level)


@method("GsNMethod", "homeMethod")
def _homeMethod(ev, receiver):
    if isinstance(receiver, ActiveMethod) and receiver.home is not None:
        return receiver.home
    return receiver


@method("GsNMethod", "_previousStepPointForIp:")
def _previousStepPointForIp(ev, receiver, ip):
    if not isinstance(ip, int) or isinstance(ip, bool):
        raise errors.argumentTypeError("_previousStepPointForIp:")
    _source(receiver)
    return steppoints.stepForOffset(receiver, max(0, (ip - FIRST_IP) // 2))


@method("GsNMethod", "_lineNumberForStep:")
def _lineNumberForStep(ev, receiver, step):
    if not isinstance(step, int) or isinstance(step, bool):
        raise errors.argumentTypeError("_lineNumberForStep:")
    source = _source(receiver)
    offset = steppoints.offsetOfStep(receiver, step)
    return source.count("\n", 0, min(offset, len(source))) + 1

