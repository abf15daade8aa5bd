"""`python -m ruleforge`: the same as the `ruleforge` command."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="ruleforge")
