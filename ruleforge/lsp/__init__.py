"""The `ruleforge lsp` language server: diagnostics, outline, hover, definitions, references and
completion for rules files in any editor that speaks LSP (docs/editors.md)."""
