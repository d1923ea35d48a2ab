// Every runtime export has a declaration in types/*.d.ts and every declaration a runtime export
// (no TypeScript compiler here: npm's registry is out of reach, so the names are compared).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url)));

for (const [entry, { types, default: source }] of Object.entries(pkg.exports)) {
  test(`${entry}: ${types} declares exactly what ${source} exports`, async () => {
    const mod = await import(new URL('../' + source, import.meta.url));
    const text = readFileSync(new URL('../' + types, import.meta.url), 'utf8');
    const declared = [...text.matchAll(/^export declare (?:function|class|const) (\w+)/gm)].map((m) => m[1]);
    assert.deepEqual([...new Set(declared)].sort(), Object.keys(mod).sort());
  });
}
