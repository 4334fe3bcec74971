"""
Run Smalltalk on behalf of one simulated session: the project parser's
syntax trees, run as closures (L{closures}), sending messages to the kernel
model.

Like GemStone's compiler, an evaluation first checks that every variable
is declared (a temporary, or a global the session can see) and refuses the
source with a CompileError otherwise; then it runs.  Every block and method
activation is a step at which a break can interrupt it.

A send finds its method along the receiver's class chain: user classes'
compiled methods (L{gsmcpd.testing.simulator.model}), then the kernel's
methods (Python functions, or Smalltalk ones run like a user's), and last
the methods a user compiled into kernel classes.
"""

import time
from fractions import Fraction

import attr

from gsmcpd.testing.simulator import (
    arithmetic,
    closures,
    compiler,
    contexteval,
    debugging,
    dictionaries,
    enumerating,
    errors,
    exceptions,
    frames,
    inspection,
    integers,
    intervals,
    magnitudes,
    processes,
    profiling,
    reflection,
    renaming,
    sequences,
    sessiontable,
    sessiontemps,
    sets,
    shapes,
    steppoints,
    streams,
    strings,
    sunit,
    system,
)
from gsmcpd.testing.simulator.kernel import CLASSES, StClass, classOf
from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.testing.simulator.objects import (
    Array,
    BlockClosure,
    Character,
    Symbol,
    UserClass,
    string,
)
from gsmcpd.testing.simulator.repository import ABSENT

# Importing these registers the kernel's methods.
KERNEL_MODULES = (arithmetic, contexteval, debugging, dictionaries, enumerating, exceptions,
                  frames, inspection, integers, intervals, magnitudes, processes, profiling,
                  reflection, renaming, sequences, sessiontable, sessiontemps, sets, shapes,
                  steppoints,
                  streams, strings, sunit, system)

_VALUE_SELECTORS = {0: "value", 1: "value:", 2: "value:value:",
                    3: "value:value:value:", 4: "value:value:value:value:"}


@attr.s(eq=False)
class Activation:
    """
    A running doit or method: what C{self} is, the method (None for a
    doit), and the instance and class variables it can name
    (L{CodeModel.variablesOf}).  A C{^} returns from it.
    """

    receiver = attr.ib(default=None)
    method = attr.ib(default=None)
    variables = attr.ib(factory=dict)
    source = attr.ib(default=None)
    """A doit's source (a method's is its C{method}'s)."""
    compiled = attr.ib(default=None)
    """Its GsNMethod, made when reflection first asks (L{frames})."""


@attr.s(eq=False)
class Frame:
    """
    One activation's variables; blocks chain to the frame they close over,
    and C{home} is the L{Activation} a C{^} returns from.

    As a frame of the stack (L{frames}) it also says which block it runs
    (None for a doit or method), where in its tree the send it is in
    starts (C{at}, set by each send), and where that tree starts in the
    source (C{origin}, for a doit run in parts).
    """

    names = attr.ib()
    parent = attr.ib(default=None)
    home = attr.ib(default=None)
    block = attr.ib(default=None)
    at = attr.ib(default=0)
    origin = attr.ib(default=0)


class NonLocalReturn(Exception):
    """
    A C{^} unwinding to the activation it returns from.
    """

    def __init__(self, home, value):
        super().__init__()
        self.home = home
        self.value = value


def fromLiteral(node):
    """
    The Smalltalk value of a parsed literal: a String or Array one is
    invariant, as the literals of GemStone's compiled code are (the
    stricter reading, docs/gemstone-fidelity.rst).
    """
    kind, value = node.kind, node.value
    if kind == "string":
        literal = string(value)
        literal.invariant = True
        return literal
    if kind == "symbol":
        return Symbol(value)
    if kind == "character":
        return Character(value)
    if kind == "array":
        return Array([fromLiteral(each) for each in value], invariant=True)
    if kind == "bytearray":
        return Array(list(value))
    if kind == "scaled":
        return Fraction(value)
    return value


@attr.s
class Evaluator:
    """
    Runs source for one session.

    @ivar session: the L{gsmcpd.testing.simulator.stone.Session} (transaction,
        identity, interrupts) the code runs in.
    """

    session = attr.ib()
    code = attr.ib(default=attr.Factory(lambda self: CodeModel(self.session), takes_self=True))
    handlers = attr.ib(factory=list)
    """The active C{on:do:} handlers, innermost last (see
    L{gsmcpd.testing.simulator.exceptions})."""
    lacking = attr.ib(init=False, default=attr.Factory(
        lambda self: self.session.stone.lacking, takes_self=True))
    """The kernel methods the session's stone lacks (L{Stone.lacking})."""
    stack = attr.ib(factory=list)
    """The running activations, innermost last: a L{Frame} for a doit,
    method or block, C{(function, receiver, args, selector)} for a kernel
    primitive.  An Error takes a copy where it is signalled
    (L{errors.SmalltalkError.stack}); L{frames} reads it."""
    compiledMethods = attr.ib(factory=dict)
    """The GsNMethod of each method run so far (L{frames.activeMethod})."""
    scheduling = attr.ib(default=None)
    """The call's forked processes, once it forks one (L{processes})."""
    deadline = attr.ib(default=None)
    """When the running forked process is preempted (L{processes})."""
    debugRun = attr.ib(default=None)
    """The L{debugging.DebugRun} whose process this runs, if it can stop."""
    performFlags = attr.ib(default=0)
    """The GCI flags of the call this evaluator runs (L{debugging})."""
    front = attr.ib(default=())
    """Dictionaries searched before the session's symbol list while a doit
    evaluates in a context (L{debugging})."""

    def evaluate(self, source):
        """
        Compile and run C{source} as a doit; answer its last statement's
        value (or what C{^} returned).

        @raise errors.SmalltalkError: a CompileError, or an Error the code
            signalled.
        @raise errors.GciError: a break interrupted it.
        """
        tree = compiler.parseExpression(source)
        compiler.checkDeclared(self.session, tree.statements,
                               set(tree.temps) | compiler.PSEUDO_VARIABLES, source)
        return self.evaluateAs(Activation(source=source), tree)

    def evaluateAs(self, home, tree):
        """
        Run the doit C{tree} as C{home} (its C{self} and the variables it
        can name); its value.
        """
        return self._activate(home, tree, {})

    def run(self, source, parts):
        """
        Run C{source} as doits that share one set of temporaries, one after
        the other: C{parts} are C{(tree, offset)}, each tree parsed from the
        source from that offset on (a source split where its arguments end:
        see L{gem}); the last value, or what C{^} returned.
        """
        home = Activation(source=source)
        frame = Frame({name: None for tree, _ in parts for name in tree.temps}, home=home)
        result = None
        stack = self.stack
        stack.append(frame)
        try:
            for tree, frame.origin in parts:
                if tree.statements:
                    result = closures.body(tree)(self, frame)
        except NonLocalReturn as returned:
            if returned.home is not home:
                raise
            return returned.value
        except errors.SmalltalkError as e:
            self.signalled(e)
            raise
        finally:
            stack.pop()
        return result

    def _activate(self, home, tree, arguments):
        """
        Run a doit's or method's statements: what C{^} returned, else the
        last statement's value (a method answers C{self} instead).  A
        debugger's restart of this activation runs the method's current
        source again from its start (L{debugging}).
        """
        stack = self.stack
        while True:
            names = {**arguments, **dict.fromkeys(tree.temps)}
            stack.append(Frame(names, home=home))
            try:
                last = closures.body(tree)(self, stack[-1])
            except NonLocalReturn as returned:
                if returned.home is not home:
                    raise
                return returned.value
            except errors.SmalltalkError as e:
                self.signalled(e)
                raise
            except debugging.Restart as restart:
                if restart.home is not home:
                    raise
                home, tree, arguments = self._restarted(home, tree, arguments)
                continue
            finally:
                stack.pop()
            return last if home.method is None else home.receiver

    def _restarted(self, home, tree, arguments):
        """
        The activation, tree and arguments a restarted method runs with:
        its method's current source, stopped before its first step point.
        """
        info = home.method
        current = self.code.method(info.className, info.selector, info.meta) or info
        fresh = compiler.parseMethod(current.source)
        values = [arguments[name] for name in tree.params]
        home = Activation(home.receiver, current, home.variables)
        arguments = dict(zip(fresh.params, values, strict=False))
        # The frame being left is still the top one until it is popped.
        self.stack[-1] = Frame({**arguments, **dict.fromkeys(fresh.temps)}, home=home)
        self.debugRun.pause(self, debugging.BREAKPOINT, "the frame was restarted")
        return home, fresh, arguments

    def signalled(self, error):
        """
        Keep the stack where C{error} was signalled, if the activations it
        has unwound so far have not: the handler that takes it runs on
        that stack, as GemStone's handlers run above the signal.
        """
        if error.stack is None:
            error.stack = self.stack[:]

    # ----------------------------------------------------------- messages

    def send(self, receiver, selector, args, startAt=None):
        """
        Send C{selector} to C{receiver}; C{startAt} is where lookup begins
        for a send to C{super}.  (Breaks are noticed where code can loop:
        at each block and method activation.)  Each send is the model's
        unit of CPU time, which a running profiler samples by
        (L{profiling}).
        """
        session = self.session
        session.sends += 1
        if session.profiler is not None:
            session.profiler.tick(self)
        found = self.lookup(startAt or classOf(receiver), selector)
        if found is None:
            error = errors.messageNotUnderstood(classOf(receiver).name, selector)
            if self.debugRun is not None:
                self.debugRun.signalled(self, error)
            raise error
        if not callable(found):
            return self.invoke(found, receiver, args)
        # A primitive's own Python error is a bug of the model, and passes
        # as one (never as a Smalltalk error a handler could take): a
        # primitive refuses an argument only by a check it makes.
        if found in _FRAMELESS:
            return found(self, receiver, *args)
        stack = self.stack
        stack.append((found, receiver, args, selector))
        try:
            return found(self, receiver, *args)
        except errors.SmalltalkError as e:
            if self.debugRun is not None and e.stack is None:
                self.debugRun.signalled(self, e)
            self.signalled(e)
            raise
        finally:
            stack.pop()

    def lookup(self, behavior, selector):
        """
        The method C{behavior}'s instances run for C{selector}: a
        L{MethodInfo}, a kernel Python function, or None.
        """
        if self.lacking and self._lacks(behavior, selector):
            return None
        if type(behavior) is StClass:
            # A kernel method found along a kernel chain is found there
            # for good: the kernel does not change.
            found = _KERNEL_LOOKUPS.get((behavior, selector))
            if found is None:
                found = behavior.lookup(selector)
                if found is not None:
                    _KERNEL_LOOKUPS[(behavior, selector)] = found
            if found is not None:
                return found
        for each in self.behaviors(behavior):
            if isinstance(each, StClass):
                found = each.lookup(selector)
                if found is not None:
                    return found
                break
            found = self.code.method(each.className, selector, each.meta)
            if found is not None:
                return found
        for each in self.behaviors(behavior):
            if isinstance(each, StClass):
                name = each.name.removesuffix(" class")
                found = self.code.method(name, selector, name != each.name)
                if found is not None:
                    return found
        return None

    def _lacks(self, behavior, selector):
        """
        Whether the kernel method C{behavior}'s instances would run for
        C{selector} is one this stone lacks (L{Stone.lacking}).
        """
        for each in self.behaviors(behavior):
            if isinstance(each, StClass) and selector in each.methods:
                return f"{each.name}>>{selector}" in self.lacking
        return False

    def behaviors(self, behavior):
        """
        C{behavior} and its superclasses, user (L{UserClass}) and kernel.
        """
        while behavior is not None:
            yield behavior
            behavior = self.code.superclassOf(behavior)

    def inherits(self, behavior, other):
        """
        Whether C{behavior} is C{other} or one of its subclasses.
        """
        if type(behavior) is StClass and type(other) is StClass:
            return behavior.includesBehavior(other)
        return any(each == other if isinstance(each, UserClass) else each is other
                   for each in self.behaviors(behavior))

    def invoke(self, method, receiver, args):
        """
        Run a compiled method for C{receiver}.
        """
        self.checkInterrupt()
        tree = compiler.parseMethod(method.source)
        home = Activation(receiver, method, self.code.variablesOf(method.className, method.meta))
        return self._activate(home, tree,
                              dict(zip(tree.params, args, strict=True)))

    def value(self, block, *args):
        """
        Evaluate C{block} with C{args}, as C{value:...} does.
        """
        if not isinstance(block, BlockClosure) or block.numArgs != len(args):
            selector = _VALUE_SELECTORS.get(len(args), "valueWithArguments:")
            if isinstance(block, BlockClosure):
                raise errors.messageNotUnderstood(classOf(block).name, selector)
            return self.send(block, selector, args)
        self.checkInterrupt()
        node = block.node
        names = dict(zip(node.params, args, strict=True))
        names.update(dict.fromkeys(node.temps))
        frame = Frame(names, block.frame, block.frame.home, block)
        stack = self.stack
        stack.append(frame)
        try:
            return closures.body(node)(self, frame)
        except errors.SmalltalkError as e:
            self.signalled(e)
            raise
        finally:
            stack.pop()

    def checkInterrupt(self):
        """
        Act on a break or kill that arrived since the last step: a soft
        break signals C{Break}, which a handler may resume; a hard break
        ends the call whatever the code handles.

        @raise errors.GciError: a break ended the call.
        """
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.deadline = None
            raise processes.Preempted()
        interrupt = self.session.interrupt
        kind = interrupt.poll()
        if kind == "soft":
            exceptions.signalBreak(self)
        elif kind == "hard":
            raise errors.breakError(True, interrupt.context)
        elif kind == "event":
            raise self.session.eventError()

    def sleep(self, seconds):
        """
        Wait C{seconds}, as C{Delay>>wait} does; a break ends the wait
        unless a handler resumes it, when the wait goes on.
        """
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            if self.session.interrupt.wait(remaining):
                self.checkInterrupt()

    # ---------------------------------------------------------- variables

    def unbound(self, name, home):
        """
        The value of C{name}, which no frame declares: a variable of the
        running method's class, else a global (nil if none).
        """
        binding = home.variables.get(name)
        if binding == ("slot",):
            return home.receiver.slots.get(name)
        if binding == ("classSlot",):
            return Symbol(home.receiver.name)
        if binding is not None:
            value = self.session.transaction.read(_variableKey(home, name, binding))
            return None if value is ABSENT else value
        if self.front:
            dictionary = contexteval.frontBinding(self, name)
            if dictionary is not None:
                return self.send(dictionary, "at:", (Symbol(name),))
        value = self.globalNamed(name)
        return None if value is ABSENT else value

    def assignUnbound(self, name, home, value):
        """
        Assign C{name}, which no frame declares (see L{unbound}); an
        unknown name becomes a global of UserGlobals, as a doit's does.
        """
        binding = home.variables.get(name)
        if binding == ("slot",):
            home.receiver.slots[name] = value
        elif binding == ("classSlot",):
            raise errors.refused(f"the simulated stone does not let a method assign "
                                 f"Class's instance variable {name}")
        elif binding is not None:
            self.session.transaction.write(_variableKey(home, name, binding), value)
        elif self.front and contexteval.frontBinding(self, name) is not None:
            self.send(contexteval.frontBinding(self, name), "at:put:", (Symbol(name), value))
        else:
            dictionary = system.resolve(self.session, name) or system.USER_GLOBALS
            self.session.transaction.write(system.globalKey(dictionary, name), value)

    def globalNamed(self, name):
        """
        The global C{name}, or L{ABSENT}; remembered by the session's
        transaction until it next changes anything.
        """
        remembered = self.session.transaction.remembered
        found = remembered.get(name)
        if found is None:
            found = remembered[name] = system.globalValue(self.session, name)
        return found

    def superclassFor(self, home):
        """
        Where lookup starts for a send to C{super} in C{home}: above the
        running method's class.
        """
        method = home.method
        if method is None:
            return None
        if method.className in CLASSES:
            kernel = CLASSES[method.className]
            return (kernel.metaclass if method.meta else kernel).superclass
        return self.code.superclassOf(UserClass(method.className, method.meta))


_KERNEL_LOOKUPS = {}

_FRAMELESS = {CLASSES[className].methods[selector] for className, selectors in (
    ("ExecBlock", ("value", "value:", "value:value:", "value:value:value:",
                   "value:value:value:value:", "valueWithArguments:")),
    ("Object", ("perform:", "perform:with:"))) for selector in selectors}
"""Kernel primitives that leave no frame of their own: evaluating a block
(C{value:}...) activates the block in its sender's place, and C{perform:}
(C{perform:with:}) sends in its sender's place."""


def _variableKey(home, name, binding):
    """
    Where a class variable (shared by the class that declares it) or a
    class-instance variable (one per class) is stored.
    """
    if binding[0] == "classVar":
        return ("classVar", binding[1], name)
    return ("classInstVar", home.receiver.className, name)
