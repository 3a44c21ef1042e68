/** `glyphfold/render/node`: Node-only additions to `glyphfold/render` (worker-thread rendering). */
export { createRenderPool, RenderPool, type PoolRenderOptions, type RenderPoolOptions } from './pool.js';
