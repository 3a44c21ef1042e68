/** The benchmark prose lives in src/cli/prose.ts (`glyphfold bench --shapes` uses it too). */
export { englishProse } from '../src/cli/prose.js';
