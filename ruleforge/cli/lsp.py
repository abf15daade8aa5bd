"""`ruleforge lsp`: the language server (ruleforge/lsp/), for editors, over stdin and stdout."""

from __future__ import annotations

import click

from .common import fail, guarded


@click.command()
@guarded
def lsp() -> None:
    """Run the language server on stdin/stdout, for an editor to start (docs/editors.md):
    diagnostics as you type, outline, hover, go to definition, references and completion."""
    try:
        from ..lsp.server import main
    except ImportError as err:
        fail(f"ruleforge lsp needs the lsp extra ({err.name} is missing): pip install 'ruleforge[lsp]'")
    main()
