"""Any rules file as a reinforcement-learning environment (docs/rl.md).

`encoding` turns a seat's view into a fixed-length vector and numbers the pieces an action is
chosen by; `pettingzoo` and `openspiel` wrap a game in those libraries' interfaces. The
libraries (numpy, gymnasium, pettingzoo, open_spiel) come with the `rl` extra and are imported
only by these modules, so `import ruleforge` never needs them.
"""
