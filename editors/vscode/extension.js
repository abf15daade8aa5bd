// The ruleforge extension: highlighting comes from syntaxes/ruleforge.tmLanguage.json (no code);
// this file starts the language server, `ruleforge lsp`, over stdio for every *.rules file, so
// `ruleforge check`'s diagnostics show as you type. The command is the setting `ruleforge.command`.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("ruleforge").get("command", ["ruleforge", "lsp"]);
  const serverOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "ruleforge" }, { scheme: "untitled", language: "ruleforge" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.rules") },
  };
  client = new LanguageClient("ruleforge", "ruleforge language server", serverOptions, clientOptions);
  // a missing `ruleforge` (not installed, or not on PATH) is shown once, not as a crash loop
  client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `ruleforge: could not start \`${[command, ...args].join(" ")}\` (${err.message}). ` +
      "Install ruleforge (pip install 'ruleforge[lsp]') or set ruleforge.command.");
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
