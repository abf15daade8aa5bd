"""A small rules file with a hostile text in every place a rules file holds one, and the texts
and names an attacker would reach for: shared by the security tests and the fuzzing suite."""

from __future__ import annotations

from hypothesis import strategies as st

# the pieces an attacker would try: quotes of every kind, backslashes, a source-map tag, braces
# closing what is not open, Python code closing its string, terminal controls, bidi controls
PIECES = ["'", "\\", "\\\\", "'''", '"""', "# @", "# @0:1:1", "}", "()", "[0]", "L[0]", "g_x_0", "a_x",
          "' + __import__('os').system('touch PWNED') + '", "__import__", "exec(", ")", "\x1b]0;title\x07",
          "\x1b[31m", "\x07", "\x7f", "\x9b", "\u202e", "\u2066", "\ufeff", "me", "st.z", "$x$",
          "[bold]x[/bold]", "%s", "é", "🂡"]
# characters a text may hold (a string of the language is one line, without its own quote or `{`)
_ALPHABET = st.characters(blacklist_characters="\"{\x00\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029",
                          blacklist_categories=("Cs",))
HOSTILE_TEXTS = st.lists(st.one_of(st.sampled_from([p for p in PIECES if '"' not in p]),
                                   st.text(_ALPHABET, max_size=6)), min_size=1, max_size=5).map("".join)
# names that are also names of the generated code, its namespace or Python's builtins
HOSTILE_NAMES = st.sampled_from(["st", "Z", "V", "L", "P", "W", "B", "rt", "out", "me_", "args", "exec", "eval",
                                 "open", "getattr", "globals", "LBL", "TBL", "PRE", "UNSET", "x", "t", "p_",
                                 "_grid0", "a_x", "g_x_0", "d_x", "v_x_0", "LIMITS", "print"])

TEMPLATE = '''game "@T@"
players 2

enum @N@_e { @N@_one, @N@_two }

kind Coin {
  value: int
  @N@_a: @N@_e = @N@_two
  var @N@_p: text = "@T@"
  label "@T@ {value}"
}

zone pool: pile, visible everyone
zone purse per player: pile, visible everyone

components {
  3 of Coin(value: 1..3) in pool
}

var score per player: int = 0
var @N@: text = "@T@"

flow {
  for p in players { turn p: take }
  log "@T@ {@N@} {@N@_m2}"
  @N@_phase
  score coins into score
}

action take(@N@_c in pool) "@T@ take {@N@_c}" {
  move @N@_c to purse(me)
  choose: keep
  log "@T@ {@N@_c}"
}

action keep() "@T@ keep" {
  log "@T@ kept"
}

def @N@_m2 = count(k for k in 1..3 if @N@ == "@T@")
def @N@_def(q: player) = count(k for k in 1..3 if "@T@" == @N@) + count(purse(q))

def @N@_n = count(c for c in pool if c.@N@_a == @N@_two and c.@N@_p == "@T@")

phase @N@_phase {
  log "@T@ {@N@_n}"
}

scoring coins for p {
  "@T@": sum(c.value for c in purse(p))
  "@T@ unrolled": count(k for k in 1..3 if "@T@" == @N@)
  "@T@ def": @N@_def(p)
}

ranking for p { score(p) }

invariant "@T@" for p { count(purse(p)) >= 0 }
measure @N@_m = count(k for k in 1..3 if "@T@" == @N@)
measure @N@_r = count(k for k in (if "@T@" == @N@ then 1 else 2)..(if "@T@" == @N@ then 1 else 2) if k == 1)
'''


def hostile_rules(text: str, name: str = "note") -> str:
    """The template with `text` in every text and `name` in every name it declares."""
    return TEMPLATE.replace("@T@", text).replace("@N@", name)
