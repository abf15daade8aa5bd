#!/usr/bin/env node
// Tokenize rules files with the TextMate engine VS Code itself uses (vscode-textmate running on
// Oniguruma compiled to wasm), so tests/test_textmate_engine.py checks the grammar as an editor
// reads it, not as Python's `re` reads its patterns.
//
//   node tokenize.js GRAMMAR.tmLanguage.json FILE.rules...
//
// prints one JSON object: for each file (as given), a list of tokens
// {line, start, end, text, scopes}, line counted from 1, start and end in code points from 0 (as
// Python indexes a str; the engine counts UTF-16 units). Each line is tokenized with the rule stack
// the previous line ended with, as an editor does. An empty line's single empty token is dropped.
'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

async function main(argv) {
  if (argv.length < 1) {
    process.stderr.write('usage: node tokenize.js GRAMMAR.tmLanguage.json FILE.rules...\n');
    return 2;
  }
  const [grammarPath, ...files] = argv;
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm')).buffer;
  await oniguruma.loadWASM(wasm);
  const raw = vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), path.resolve(grammarPath));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => (scopeName === raw.scopeName ? raw : null),
  });
  const grammar = await registry.loadGrammar(raw.scopeName);
  if (!grammar) {
    throw new Error(`no grammar for ${raw.scopeName}`);
  }
  const out = {};
  for (const file of files) {
    out[file] = tokenizeText(grammar, fs.readFileSync(file, 'utf8'));
  }
  process.stdout.write(JSON.stringify(out) + '\n');
  return 0;
}

function tokenizeText(grammar, text) {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') {
    lines.pop();  // the newline ending the last line starts no line of its own
  }
  const tokens = [];
  let ruleStack = vsctm.INITIAL;
  lines.forEach((line, k) => {
    const result = grammar.tokenizeLine(line, ruleStack);
    for (const token of result.tokens) {
      const end = Math.min(token.endIndex, line.length);  // the engine may end the last token past the line
      if (end <= token.startIndex) {
        continue;
      }
      const start = codePoints(line.slice(0, token.startIndex));
      const piece = line.slice(token.startIndex, end);
      tokens.push({ line: k + 1, start, end: start + codePoints(piece), text: piece, scopes: token.scopes });
    }
    ruleStack = result.ruleStack;
  });
  return tokens;
}

function codePoints(s) {
  return Array.from(s).length;
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => { process.stderr.write(`${error.stack || error}\n`); process.exitCode = 1; },
);
