"""
A lexer and recursive-descent parser for GemStone Smalltalk doits and
method definitions.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from decimal import Decimal

import attrs

from .ast import (
    Assignment,
    Block,
    BraceArray,
    Cascade,
    Literal,
    Message,
    Method,
    Node,
    Offsets,
    Return,
    Sequence,
    Variable,
)

_IDENTIFIER_START = frozenset(string.ascii_letters + "_")
_IDENTIFIER_CHARS = _IDENTIFIER_START | frozenset(string.digits)
_DIGITS = frozenset(string.digits)
_BINARY_CHARS = frozenset("+-*/\\<>=~@%|&?,!")
_PUNCTUATION = frozenset("()[]{}.;^")
_ENVIRONMENT = re.compile(r"@env[0-9]+:(?=[A-Za-z_+\-*/\\<>=~@%|&?,!])")
_CONSTANTS = {"nil": None, "true": True, "false": False}
_PSEUDO_VARIABLES = frozenset({"self", "super", "thisContext", *_CONSTANTS})
_NUMBER_KINDS = frozenset({"integer", "float", "scaled"})

_NUMBER = re.compile(
    r"""
      (?P<radix>[0-9]+) r (?P<radix_digits>[0-9A-Z]+)
    | (?P<integer>[0-9]+) (?: \. (?P<fraction>[0-9]+) )?
      (?: (?P<marker>[edq]) (?P<exponent>-?[0-9]+) )?
      (?: (?: (?P<scaled>s)[0-9]* | (?P<float>f) ) (?![A-Za-z0-9_]) )?
    """,
    re.VERBOSE,
)


class SmalltalkSyntaxError(Exception):
    """
    The source is not valid Smalltalk; C{offset} (0-based) and C{line}
    (1-based) say where the parser gave up.
    """

    def __init__(self, message: str, offset: int, line: int) -> None:
        super().__init__(message, offset, line)
        self.message = message
        self.offset = offset
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message} (offset {self.offset})"


def _error(source: str, message: str, offset: int) -> SmalltalkSyntaxError:
    return SmalltalkSyntaxError(message, offset, source.count("\n", 0, offset) + 1)


@attrs.frozen
class _Token:
    """
    C{kind} is "identifier", "keyword", "binary" (C{text} is then the
    word), "literal" (C{literal} is then the L{Literal}), "eof", or the
    punctuation itself ("(", ":=", "#(").
    """

    kind: str
    text: str
    offset: int
    end: int
    literal: Literal | None = None


class _Lexer:
    def __init__(self, source: str, pos: int = 0) -> None:
        self._source = source
        self._pos = pos

    def tokens(self) -> list[_Token]:
        tokens = []
        while True:
            self.skip_blanks()
            tokens.append(self._next())
            if tokens[-1].kind == "eof":
                return tokens

    def skip_blanks(self) -> None:
        source = self._source
        while self._pos < len(source):
            if source[self._pos].isspace():
                self._pos += 1
            elif source[self._pos] == '"':
                self.comment()
            else:
                return

    def comment(self) -> str:
        """
        Consume the comment at the current position and return its text.
        """
        return self._quoted('"', "comment")

    def _quoted(self, quote: str, what: str) -> str:
        """
        Consume text between C{quote}s, where a doubled quote stands for
        one.
        """
        source, start = self._source, self._pos
        parts = []
        pos = start + 1
        while True:
            end = source.find(quote, pos)
            if end < 0:
                raise _error(source, f"unterminated {what}", start)
            parts.append(source[pos:end])
            if not source.startswith(quote, end + 1):
                self._pos = end + 1
                return "".join(parts)
            parts.append(quote)
            pos = end + 2

    def _scan(self, chars: frozenset[str], pos: int) -> int:
        source = self._source
        while pos < len(source) and source[pos] in chars:
            pos += 1
        return pos

    def _token(self, kind: str, text: str, start: int) -> _Token:
        return _Token(kind, text, start, self._pos)

    def _literal(self, value: object, kind: str, start: int) -> _Token:
        return _Token("literal", "", start, self._pos,
                      Literal(value, kind, offset=start, end=self._pos))

    def _next(self) -> _Token:
        source, start = self._source, self._pos
        if start >= len(source):
            return self._token("eof", "", start)
        char = source[start]
        if char in _IDENTIFIER_START:
            return self._identifier()
        if char in _DIGITS:
            return self._number()
        if char == "'":
            return self._literal(self._quoted("'", "string"), "string", start)
        if char == "$":
            if start + 1 >= len(source):
                raise _error(source, "expected a character after '$'", start)
            self._pos = start + 2
            return self._literal(source[start + 1], "character", start)
        if char == "#":
            return self._hash()
        if char == ":":
            self._pos = start + (2 if source.startswith(":=", start) else 1)
            return self._token(source[start : self._pos], "", start)
        environment = _ENVIRONMENT.match(source, start)
        if environment:
            # GemStone's environment send ("x @env0:at: 1"): what follows
            # the prefix is the message; the environment is the stone's
            # business.
            self._pos = environment.end()
            return self._next()
        if char in _BINARY_CHARS:
            return self._binary()
        if char in _PUNCTUATION:
            self._pos = start + 1
            return self._token(char, "", start)
        raise _error(source, f"unexpected character {char!r}", start)

    def _identifier(self) -> _Token:
        source, start = self._source, self._pos
        end = self._scan(_IDENTIFIER_CHARS, start)
        if source.startswith(":", end) and not source.startswith(":=", end):
            self._pos = end + 1
            return self._token("keyword", source[start : end + 1], start)
        self._pos = end
        return self._token("identifier", source[start:end], start)

    def _binary(self) -> _Token:
        # A '-' just before a digit stands alone, so that the parser can
        # read it as a sign where it expects an operand ("3 @ -4").
        source, start = self._source, self._pos
        end = start
        while end < len(source) and source[end] in _BINARY_CHARS:
            if source[end] == "-" and source[end + 1 : end + 2] in _DIGITS:
                if end == start:
                    end += 1
                break
            end += 1
        self._pos = end
        return self._token("binary", source[start:end], start)

    def _hash(self) -> _Token:
        source, start = self._source, self._pos
        follower = source[start + 1 : start + 2]
        if follower in ("(", "["):
            self._pos = start + 2
            return self._token("#" + follower, "", start)
        if follower == "'":
            self._pos = start + 1
            return self._literal(self._quoted("'", "symbol"), "symbol", start)
        if follower in _IDENTIFIER_START:
            end = self._scan(_IDENTIFIER_CHARS, start + 1)
            while source.startswith(":", end):
                end = self._scan(_IDENTIFIER_CHARS, end + 1)
        elif follower in _BINARY_CHARS:
            end = self._scan(_BINARY_CHARS, start + 1)
        else:
            raise _error(source, "expected a literal after '#'", start)
        self._pos = end
        return self._literal(source[start + 1 : end], "symbol", start)

    def _number(self) -> _Token:
        source, start = self._source, self._pos
        match = _NUMBER.match(source, start)
        # A digit starts it, and the pattern matches any run of digits.
        assert match is not None
        self._pos = match.end()
        if match["radix"]:
            radix = int(match["radix"])
            digits = match["radix_digits"]
            if not 2 <= radix <= 36 or max(int(d, 36) for d in digits) >= radix:
                raise _error(source, f"invalid radix {radix} number", start)
            return self._literal(int(digits, radix), "integer", start)
        mantissa = match["integer"]
        if match["fraction"]:
            mantissa += "." + match["fraction"]
        exponent = int(match["exponent"] or 0)
        if match["scaled"]:
            return self._literal(Decimal(f"{mantissa}e{exponent}"), "scaled", start)
        if (
            match["fraction"]
            or match["float"]
            or match["marker"] in ("d", "q")
            or exponent < 0
        ):
            return self._literal(float(f"{mantissa}e{exponent}"), "float", start)
        return self._literal(int(match["integer"]) * 10**exponent, "integer", start)


class _Parser:
    def __init__(self, source: str) -> None:
        self._source = source
        self._tokens = _Lexer(source).tokens()
        self._pos = 0

    @property
    def _token(self) -> _Token:
        return self._tokens[self._pos]

    def _peek(self) -> _Token:
        return self._tokens[min(self._pos + 1, len(self._tokens) - 1)]

    def _advance(self) -> _Token:
        token = self._token
        if token.kind != "eof":
            self._pos += 1
        return token

    def _error(self, message: str) -> SmalltalkSyntaxError:
        return _error(self._source, message, self._token.offset)

    @property
    def _end(self) -> int:
        """Where the last token taken ends: the end of the node it closes."""
        return self._tokens[self._pos - 1].end if self._pos else 0

    def _unexpected(self, closer: str) -> SmalltalkSyntaxError:
        token = self._token
        if token.kind == "eof":
            return self._error(f"expected {closer!r}")
        text = self._source[token.offset : token.end]
        return self._error(f"unexpected {text!r}")

    def _expect(self, kind: str, message: str) -> _Token:
        if self._token.kind != kind:
            raise self._error(message)
        return self._advance()

    def _take_bar(self) -> bool:
        """
        Consume one '|', which may be the first of a run such as '||'.
        """
        token = self._token
        if token.kind != "binary" or not token.text.startswith("|"):
            return False
        if token.text == "|":
            self._advance()
        else:
            self._tokens[self._pos] = attrs.evolve(
                token, text=token.text[1:], offset=token.offset + 1
            )
        return True

    def sequence(self) -> Sequence:
        offset = self._token.offset
        temps = self._temporaries()
        return Sequence(temps, self._statements("eof"), offset=offset,
                        end=self._end)

    def method(self) -> Method:
        offset = self._token.offset
        selector, params, parts, paramOffsets = self._pattern()
        pragmas: list[tuple[str, tuple[Literal, ...]]] = []
        temps = None
        while True:
            if self._token.kind == "binary" and self._token.text == "<":
                pragmas.extend(self._pragma())
            elif temps is None and self._take_bar():
                temps = self._temporary_names()
            else:
                break
        return Method(
            selector,
            params,
            tuple(pragmas),
            temps or (),
            self._statements("eof"),
            offset=offset,
            end=self._end,
            parts=parts,
            paramOffsets=paramOffsets,
        )

    def _pattern(self) -> tuple[str, tuple[str, ...], Offsets, Offsets]:
        """
        The selector, the parameters, and where each keyword and each
        parameter starts.
        """
        token = self._advance()
        if token.kind == "identifier":
            return token.text, (), (token.offset,), ()
        if token.kind not in ("binary", "keyword"):
            raise _error(self._source, "expected a method pattern", token.offset)
        keywords, parts, params = [token.text], [token.offset], [self._argument()]
        while token.kind == "keyword" and self._token.kind == "keyword":
            keywords.append(self._token.text)
            parts.append(self._advance().offset)
            params.append(self._argument())
        return ("".join(keywords), tuple(name.text for name in params),
                tuple(parts), tuple(name.offset for name in params))

    def _argument(self) -> _Token:
        return self._expect("identifier", "expected an argument name")

    def _pragma(self) -> list[tuple[str, tuple[Literal, ...]]]:
        """
        Parse C{<primitive: 60>}; GemStone's C{<protected primitive: 19>}
        becomes two pragmas.
        """
        self._advance()
        pragmas: list[tuple[str, tuple[Literal, ...]]] = []
        while self._token.kind == "identifier":
            pragmas.append((self._advance().text, ()))
        if self._token.kind == "keyword":
            keywords, args = [], []
            while self._token.kind == "keyword":
                keywords.append(self._advance().text)
                arg = self._primary("expected a pragma argument")
                if not isinstance(arg, Literal):
                    raise _error(
                        self._source, "pragma arguments must be literals", arg.offset
                    )
                args.append(arg)
            pragmas.append(("".join(keywords), tuple(args)))
        if not pragmas:
            raise self._error("expected a pragma")
        if self._token.kind != "binary" or self._token.text != ">":
            raise self._error("expected '>'")
        self._advance()
        return pragmas

    def _temporaries(self) -> tuple[str, ...]:
        return self._temporary_names() if self._take_bar() else ()

    def _temporary_names(self) -> tuple[str, ...]:
        names = []
        while self._token.kind == "identifier":
            names.append(self._advance().text)
        if not self._take_bar():
            raise self._error("expected '|'")
        return tuple(names)

    def _statements(
        self, closer: str, parse: Callable[[], Node] | None = None
    ) -> tuple[Node, ...]:
        """
        Parse period-separated statements up to, not including, C{closer}.
        """
        parse = parse or self._statement
        statements = []
        while self._token.kind != closer:
            if self._token.kind == "eof":
                raise self._unexpected(closer)
            statements.append(parse())
            if self._token.kind == ".":
                self._advance()
            elif self._token.kind != closer:
                raise self._unexpected(closer)
        return tuple(statements)

    def _statement(self) -> Node:
        if self._token.kind == "^":
            caret = self._advance()
            value = self._expression()
            return Return(value, offset=caret.offset, end=value.end)
        return self._expression()

    def _expression(self) -> Node:
        token = self._token
        if token.kind == "identifier" and self._peek().kind == ":=":
            if token.text in _PSEUDO_VARIABLES:
                raise self._error(f"cannot assign to {token.text}")
            self._pos += 2
            value = self._expression()
            return Assignment(token.text, value, offset=token.offset, end=value.end)
        receiver = self._primary()
        expression = self._keyword_message(
            self._binary_messages(self._unary_messages(receiver))
        )
        if self._token.kind != ";":
            return expression
        if expression is receiver:
            raise self._error("expected a message before ';'")
        assert isinstance(expression, Message)  # one was parsed after it
        messages = [(expression.selector, expression.args)]
        parts = [expression.parts]
        while self._token.kind == ";":
            self._advance()
            parts.append((self._token.offset,))
            selector, args, keywords = self._cascade_message()
            messages.append((selector, args))
            parts[-1] = keywords or parts[-1]
        return Cascade(expression.receiver, tuple(messages),
                       offset=expression.offset, end=self._end,
                       parts=tuple(parts))

    def _cascade_message(self) -> tuple[str, tuple[Node, ...], Offsets]:
        token = self._token
        if token.kind == "identifier":
            self._advance()
            return token.text, (), ()
        if token.kind == "binary":
            self._advance()
            return (token.text,
                    (self._binary_operand(f"after {token.text!r}"),), ())
        if token.kind == "keyword":
            return self._keyword_parts()
        raise self._error("expected a message after ';'")

    def _unary_messages(self, receiver: Node) -> Node:
        while self._token.kind == "identifier":
            token = self._advance()
            receiver = Message(receiver, token.text, (), offset=receiver.offset,
                               end=token.end, parts=(token.offset,))
        return receiver

    def _binary_operand(self, where: str) -> Node:
        return self._unary_messages(self._primary(f"expected an argument {where}"))

    def _binary_messages(self, receiver: Node) -> Node:
        while self._token.kind == "binary":
            token = self._advance()
            arg = self._binary_operand(f"after {token.text!r}")
            receiver = Message(receiver, token.text, (arg,), offset=receiver.offset,
                               end=self._end, parts=(token.offset,))
        return receiver

    def _keyword_message(self, receiver: Node) -> Node:
        if self._token.kind != "keyword":
            return receiver
        selector, args, parts = self._keyword_parts()
        return Message(receiver, selector, args, offset=receiver.offset,
                       end=self._end, parts=parts)

    def _keyword_parts(self) -> tuple[str, tuple[Node, ...], Offsets]:
        keywords, args, parts = [], [], []
        while self._token.kind == "keyword":
            token = self._advance()
            keywords.append(token.text)
            parts.append(token.offset)
            args.append(
                self._binary_messages(self._binary_operand(f"after {token.text!r}"))
            )
        return "".join(keywords), tuple(args), tuple(parts)

    def _primary(self, message: str = "expected an expression") -> Node:
        token = self._token
        if token.kind == "identifier":
            if token.text in _CONSTANTS:
                return self._constant(token)
            self._advance()
            return Variable(token.text, offset=token.offset, end=token.end)
        if token.literal is not None:
            self._advance()
            return token.literal
        if token.kind == "(":
            self._advance()
            expression = self._expression()
            self._expect(")", "expected ')'")
            return expression
        if token.kind == "[":
            return self._block()
        if token.kind == "{":
            self._advance()
            elements = self._statements("}", self._expression)
            self._advance()
            return BraceArray(elements, offset=token.offset, end=self._end)
        if token.kind == "#(":
            return self._literal_array()
        if token.kind == "#[":
            return self._byte_array()
        negative = self._negative_number()
        if negative is None:
            raise self._error(message)
        return negative

    def _constant(self, token: _Token) -> Literal:
        """
        Take C{token}, the identifier C{nil}, C{true} or C{false}.
        """
        self._advance()
        return Literal(_CONSTANTS[token.text], token.text, offset=token.offset,
                       end=token.end)

    def _negative_number(self) -> Literal | None:
        minus, number = self._token, self._peek()
        literal = number.literal
        if (
            minus.kind == "binary"
            and minus.text == "-"
            and literal is not None
            and number.offset == minus.end
            and literal.kind in _NUMBER_KINDS
        ):
            self._pos += 2
            return attrs.evolve(literal, value=-literal.value, offset=minus.offset)
        return None

    def _block(self) -> Block:
        offset = self._advance().offset
        params = []
        while self._token.kind == ":":
            self._advance()
            params.append(self._expect("identifier", "expected a parameter name").text)
        if params and not self._take_bar() and self._token.kind != "]":
            raise self._error("expected '|'")
        temps = self._temporaries()
        statements = self._statements("]")
        self._advance()
        return Block(tuple(params), temps, statements, offset=offset, end=self._end)

    def _literal_array(self) -> Literal:
        offset = self._advance().offset
        elements = []
        while self._token.kind != ")":
            elements.append(self._array_element())
        self._advance()
        return Literal(tuple(elements), "array", offset=offset, end=self._end)

    def _array_element(self) -> Literal:
        """
        Parse one element of a literal array, where bare words and
        selectors are symbols.
        """
        token = self._token
        if token.kind in ("#(", "("):
            return self._literal_array()
        if token.kind == "#[":
            return self._byte_array()
        if token.literal is not None:
            self._advance()
            return token.literal
        if token.kind == "identifier" and token.text in _CONSTANTS:
            return self._constant(token)
        negative = self._negative_number()
        if negative is not None:
            return negative
        if token.kind in ("identifier", "binary"):
            self._advance()
            return Literal(token.text, "symbol", offset=token.offset, end=token.end)
        if token.kind == "keyword":
            # Adjacent keywords, as in #(at:put:), make one symbol.
            end = token.end
            while self._peek().kind == "keyword" and self._peek().offset == end:
                self._advance()
                end = self._token.end
            self._advance()
            return Literal(
                self._source[token.offset : end], "symbol", offset=token.offset,
                end=end,
            )
        raise self._unexpected(")")

    def _byte_array(self) -> Literal:
        offset = self._advance().offset
        values = bytearray()
        while self._token.kind != "]":
            if self._token.kind == "eof":
                raise self._error("expected ']'")
            literal = self._token.literal
            if (
                literal is None
                or literal.kind != "integer"
                or not 0 <= literal.value <= 255
            ):
                raise self._error("expected a byte value (0 to 255)")
            values.append(literal.value)
            self._advance()
        self._advance()
        return Literal(bytes(values), "bytearray", offset=offset, end=self._end)


def parse_expression(source: str) -> Sequence:
    """
    Parse a doit, as GciTsExecute would compile it: optional temporaries,
    then statements.

    @raise SmalltalkSyntaxError: if C{source} is not a valid doit.
    """
    return _Parser(source).sequence()


def parse_method(source: str) -> Method:
    """
    Parse a method definition: pattern, pragmas and temporaries, statements.

    @raise SmalltalkSyntaxError: if C{source} is not a valid method.
    """
    return _Parser(source).method()


def closing_bracket(source: str, start: int) -> int:
    """
    The offset of the C{]} that closes a C{[} opened just before C{start}:
    brackets inside strings, comments, character and literal arrays do
    not count (Tonel's method bodies end so).

    @raise SmalltalkSyntaxError: if none closes it.
    """
    lexer = _Lexer(source, start)
    depth = 1
    while True:
        lexer.skip_blanks()
        token = lexer._next()
        if token.kind in ("[", "#["):
            depth += 1
        elif token.kind == "]":
            depth -= 1
            if depth == 0:
                return token.offset
        elif token.kind == "eof":
            raise _error(source, "expected ']' to end the method", start)


def parse_selector(source: str) -> str:
    """
    The selector of a method definition, read from its pattern alone: all
    a caller that needs only the name should pay for, on a source of any
    size (the rest is left to the compiler).

    @raise SmalltalkSyntaxError: if C{source} does not start with a method
        pattern.
    """
    lexer = _Lexer(source)

    def advance() -> _Token:
        lexer.skip_blanks()
        return lexer._next()

    def argument() -> None:
        token = advance()
        if token.kind != "identifier":
            raise _error(source, "expected an argument name", token.offset)

    token = advance()
    if token.kind == "identifier":
        return token.text
    if token.kind == "binary":
        argument()
        return token.text
    if token.kind != "keyword":
        raise _error(source, "expected a method pattern", token.offset)
    keywords = [token.text]
    argument()
    while True:
        before = lexer._pos
        token = advance()
        if token.kind != "keyword":
            lexer._pos = before
            return "".join(keywords)
        keywords.append(token.text)
        argument()

