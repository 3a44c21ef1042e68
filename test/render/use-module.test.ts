import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decode, normalize, render, useWasmModule } from '../../src/render/index.js';

// The core as a host-compiled module (Workers import the `.wasm` file; here Node compiles the built file).
const wasmFile = new URL('../../build/glyphfold.wasm', import.meta.url);
const options = { shape: { width: 504, height: 400 }, variant: 'gf-6x10', engine: 'wasm' } as const;
const text = 'A host-compiled core.\n' + 'wrap '.repeat(80);
// The ES2023 lib used here does not declare the WebAssembly JS API.
const { Module } = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } })
  .WebAssembly;

// The order matters: no render before these, so no idle core built from the embedded bytes is reused.
describe('useWasmModule', () => {
  it('is the module the WASM engine instantiates: an empty module fails the render', async () => {
    const empty = new Module(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    useWasmModule(empty);
    await expect(render(text, options)).rejects.toThrow();
  });

  it('renders with a module compiled by the host', async () => {
    useWasmModule(new Module(readFileSync(wasmFile)));
    const { pages } = await render(text, options);
    expect(pages.length).toBeGreaterThan(0);
    expect(
      decode(
        pages.map((p) => p.png),
        { variant: 'gf-6x10' },
      ),
    ).toBe(normalize(text));
  });

  it('rejects anything but a WebAssembly.Module, naming what it found', () => {
    expect(() => useWasmModule(readFileSync(wasmFile))).toThrow(
      /expected a WebAssembly\.Module, found object/,
    );
    expect(() => useWasmModule(null as unknown as object)).toThrow(/found null/);
  });
});
