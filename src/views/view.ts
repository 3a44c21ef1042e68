/**
 * The `WireView` contract: one object per provider format, registered in `index.ts`.
 * Adding a provider: write `src/views/<name>.ts` exporting a `WireView`, add it to `VIEWS`, add its
 * body validator and a round trip through the fake provider in `test/views/`.
 */
import type { Turn } from './normalize.js';
import type { WireBodies } from './bodies.js';
import type { ProviderFamily, WireProvider, WireRequest } from './types.js';

export interface ViewContext {
  /** False when the target model has no vision: images arrive here already turned into text. */
  vision: boolean;
}

export interface WireView<P extends WireProvider = WireProvider> {
  provider: P;
  family: ProviderFamily;
  /** The format rejects a conversation that opens with an assistant turn. */
  userFirst: boolean;
  /** Format-specific rewrite of the turns before `build` (token estimates see the same turns). */
  adjust?(turns: Turn[]): Turn[];
  /** Neutral turns (pairing already repaired, same roles merged) → the request body. Pure. */
  build(turns: Turn[], request: WireRequest, ctx: ViewContext): WireBodies[P];
}
