/**
 * Generates examples/session.claude.jsonl: a long, realistic Claude Code session (a person asks for a
 * refactor of a small TypeScript codebase; many file reads, test runs with multi-KB output, two
 * screenshots, a rejected tool call, a correction midway, compile and test failures).
 * Deterministic: run `npx tsx scripts/make-example.ts` and the same bytes come out.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClaudeWriter } from './lib/claude-writer.js';
import { fakeUuid, rng, screenshotPng } from './lib/png.js';

const next = rng(7301);
const pick = <T>(a: readonly T[]): T => a[Math.floor(next() * a.length)]!;
const CWD = '/home/sam/work/shipkit';

// ------------------------------------------------------------------ the codebase being refactored
interface Step {
  call: string;
  out: string;
  check?: string;
}
interface Fn {
  name: string;
  domain: string;
  doc: string;
  params: string;
  returns: string;
  steps: Step[];
  result: string;
}

const DOMAINS: Record<string, { fns: [string, string, string, string][]; steps: Step[] }> = {
  orders: {
    fns: [
      [
        'processOrder',
        'Validates, prices, reserves stock for and confirms an order.',
        'orderId: string',
        'OrderResult',
      ],
      [
        'cancelOrder',
        'Cancels an order that has not shipped and releases its reservations.',
        'orderId: string, reason: CancelReason',
        'Order',
      ],
      ['splitOrder', 'Splits an order into one shipment per warehouse.', 'orderId: string', 'Shipment[]'],
      [
        'mergeOrders',
        'Merges open orders of one customer that ship to the same address.',
        'customerId: string',
        'Order',
      ],
      [
        'reopenOrder',
        'Reopens a cancelled order within the grace period.',
        'orderId: string, actor: Actor',
        'Order',
      ],
      [
        'holdOrder',
        'Puts an order on hold for manual fraud review.',
        'orderId: string, note: string',
        'Order',
      ],
      [
        'releaseHold',
        'Releases a fraud hold and resumes processing.',
        'orderId: string, actor: Actor',
        'OrderResult',
      ],
      [
        'amendOrder',
        'Changes quantities on an unshipped order and re-prices it.',
        'orderId: string, changes: LineChange[]',
        'Order',
      ],
      [
        'orderTimeline',
        'Collects every event of an order for the support view.',
        'orderId: string',
        'TimelineEntry[]',
      ],
      ['expireCarts', 'Expires abandoned carts older than the retention window.', 'before: string', 'number'],
      [
        'listOpenOrders',
        'Lists open orders for the admin dashboard, newest first.',
        'filter: OrderFilter',
        'OrderSummary[]',
      ],
    ],
    steps: [
      { call: 'db.getOrder(orderId)', out: 'order', check: 'order' },
      { call: 'db.getCustomer(order.customerId)', out: 'customer', check: 'customer' },
      { call: 'validateOrder(order, customer)', out: 'problems' },
      { call: 'db.lockOrder(order.id, LOCK_TTL_MS)', out: 'lock' },
      { call: 'db.updateOrder(order.id, { status: nextStatus(order) })', out: 'updated' },
      { call: 'audit.record("order", order.id, actor)', out: 'entry' },
    ],
  },
  pricing: {
    fns: [
      [
        'quoteOrder',
        'Prices every line of an order, applying tier discounts and coupons.',
        'order: Order',
        'Quote',
      ],
      [
        'applyCoupon',
        'Applies a coupon code if it is valid for the customer and the cart.',
        'order: Order, code: string',
        'Quote',
      ],
      [
        'taxFor',
        'Computes tax per line using the destination’s rules.',
        'quote: Quote, address: Address',
        'TaxBreakdown',
      ],
      [
        'convertCurrency',
        'Converts a quote to the customer’s currency at the daily rate.',
        'quote: Quote, currency: Currency',
        'Quote',
      ],
      ['bulkPrice', 'Prices a wholesale order with volume breaks.', 'order: Order, tier: Tier', 'Quote'],
      [
        'priceHistory',
        'Returns the price changes of a SKU for the audit log.',
        'sku: string',
        'PriceChange[]',
      ],
      [
        'roundQuote',
        'Rounds each line to the currency’s minor unit, carrying the remainder.',
        'quote: Quote',
        'Quote',
      ],
      [
        'validateCoupon',
        'Checks a coupon’s window, usage count and customer segment.',
        'code: string, customer: Customer',
        'CouponCheck',
      ],
      [
        'loyaltyDiscount',
        'Computes the loyalty discount from the customer’s 12-month spend.',
        'customer: Customer, quote: Quote',
        'Money',
      ],
    ],
    steps: [
      { call: 'db.getPriceList(order.priceListId)', out: 'priceList', check: 'priceList' },
      { call: 'rates.today(order.currency)', out: 'rate' },
      { call: 'db.getCoupon(code)', out: 'coupon', check: 'coupon' },
      { call: 'taxes.rulesFor(address.country, address.region)', out: 'rules' },
      { call: 'db.spendLast12Months(customer.id)', out: 'spend' },
    ],
  },
  inventory: {
    fns: [
      [
        'reserveStock',
        'Reserves stock for each line in the warehouse closest to the address.',
        'order: Order',
        'Reservation[]',
      ],
      ['releaseStock', 'Releases reservations held by an order.', 'orderId: string', 'number'],
      [
        'restock',
        'Adds received units to a SKU and wakes back-ordered lines.',
        'sku: string, units: number',
        'StockLevel',
      ],
      [
        'stockReport',
        'Builds the per-warehouse stock report shown on the dashboard.',
        'warehouseId: string',
        'StockReport',
      ],
      [
        'cycleCount',
        'Records a cycle count and books the difference as shrinkage.',
        'warehouseId: string, counts: Count[]',
        'Adjustment[]',
      ],
      ['lowStockAlerts', 'Finds SKUs under their reorder point.', 'warehouseId: string', 'Alert[]'],
      [
        'reserveBundle',
        'Reserves all parts of a bundle or none.',
        'order: Order, bundleSku: string',
        'Reservation[]',
      ],
      ['expireReservations', 'Releases reservations older than the hold window.', 'before: string', 'number'],
      [
        'transferStock',
        'Moves units between warehouses, recording both legs.',
        'sku: string, from: string, to: string, units: number',
        'Transfer',
      ],
    ],
    steps: [
      { call: 'db.getStock(line.sku)', out: 'stock', check: 'stock' },
      { call: 'warehouses.closestTo(order.shippingAddress)', out: 'warehouse', check: 'warehouse' },
      {
        call: 'db.insertReservation({ orderId: order.id, sku: line.sku, units: line.quantity })',
        out: 'reservation',
      },
      { call: 'db.backorders(sku)', out: 'waiting' },
      { call: 'db.adjustStock(sku, units)', out: 'level' },
    ],
  },
  shipping: {
    fns: [
      [
        'rateShipment',
        'Asks the carriers for rates and picks the cheapest within the promised window.',
        'shipment: Shipment',
        'Rate',
      ],
      [
        'buyLabel',
        'Buys a label from the chosen carrier and stores the tracking number.',
        'shipment: Shipment, rate: Rate',
        'Label',
      ],
      [
        'trackShipment',
        'Polls the carrier for tracking events since the last poll.',
        'shipmentId: string',
        'TrackingEvent[]',
      ],
      ['voidLabel', 'Voids an unused label and requests the carrier refund.', 'labelId: string', 'Label'],
      ['returnLabel', 'Creates a prepaid return label for an RMA.', 'rmaId: string', 'Label'],
      [
        'deliveryEstimate',
        'Estimates delivery dates for checkout.',
        'address: Address, items: Line[]',
        'Estimate',
      ],
      ['manifest', 'Builds the end-of-day carrier manifest.', 'warehouseId: string, day: string', 'Manifest'],
      [
        'schedulePickup',
        'Books a carrier pickup for the day’s labels.',
        'warehouseId: string, day: string',
        'Pickup',
      ],
    ],
    steps: [
      { call: 'carriers.rates(shipment)', out: 'rates' },
      { call: 'db.getShipment(shipmentId)', out: 'shipment', check: 'shipment' },
      { call: 'carriers.buy(rate.carrier, shipment, rate.service)', out: 'label' },
      { call: 'db.saveLabel(shipment.id, label)', out: 'saved' },
      { call: 'carriers.events(shipment.trackingNumber, shipment.lastPolledAt)', out: 'events' },
    ],
  },
  payments: {
    fns: [
      [
        'capturePayment',
        'Captures the authorised amount once the order ships.',
        'orderId: string',
        'Payment',
      ],
      [
        'refundPayment',
        'Refunds part or all of a captured payment.',
        'paymentId: string, amount: Money',
        'Refund',
      ],
      [
        'authorize',
        'Authorises the quoted total on the customer’s default card.',
        'order: Order, quote: Quote',
        'Authorization',
      ],
      [
        'retryFailedCaptures',
        'Retries captures that failed with a soft decline.',
        'day: string',
        'Payment[]',
      ],
      [
        'chargeback',
        'Records a chargeback and freezes the customer’s open orders.',
        'paymentId: string, reason: string',
        'Dispute',
      ],
      ['payoutReport', 'Summarises payouts per merchant account.', 'month: string', 'PayoutReport'],
      [
        'reconcile',
        'Matches the day’s settlements against captured payments.',
        'day: string',
        'ReconcileReport',
      ],
    ],
    steps: [
      { call: 'db.getPayment(paymentId)', out: 'payment', check: 'payment' },
      { call: 'gateway.capture(payment.authorizationId, payment.amount)', out: 'capture' },
      { call: 'gateway.refund(payment.captureId, amount)', out: 'refund' },
      { call: 'db.settlements(day)', out: 'settlements' },
      { call: 'ledger.post(entryFor(payment))', out: 'posted' },
    ],
  },
  notifications: {
    fns: [
      ['notifyShipped', 'Emails the customer their tracking link.', 'orderId: string', 'Delivery'],
      [
        'notifyBackorder',
        'Tells the customer which lines are back-ordered and when they are expected.',
        'orderId: string',
        'Delivery',
      ],
      ['notifyRefund', 'Confirms a refund to the customer.', 'refundId: string', 'Delivery'],
      [
        'notifyDelay',
        'Warns the customer that a carrier reported a delay.',
        'shipmentId: string',
        'Delivery',
      ],
      [
        'unsubscribe',
        'Records an unsubscribe and suppresses marketing mail.',
        'email: string',
        'Suppression',
      ],
      [
        'digestForAdmins',
        'Builds the nightly digest of failed payments and stuck orders.',
        'day: string',
        'Digest',
      ],
    ],
    steps: [
      { call: 'templates.load("shipped", customer.locale)', out: 'template', check: 'template' },
      { call: 'mailer.send(customer.email, template.render(context))', out: 'delivery' },
      { call: 'db.failedPayments(day)', out: 'failed' },
      { call: 'db.stuckOrders(day, STUCK_AFTER_HOURS)', out: 'stuck' },
    ],
  },
};

const FNS: Fn[] = Object.entries(DOMAINS).flatMap(([domain, d]) =>
  d.fns.map(([name, doc, params, returns]) => {
    const n = 3 + Math.floor(next() * 3);
    const steps: Step[] = [];
    const pool = [...d.steps];
    for (let i = 0; i < n && pool.length > 0; i++)
      steps.push(pool.splice(Math.floor(next() * pool.length), 1)[0]!);
    const last = steps[steps.length - 1]!.out;
    return {
      name,
      domain,
      doc,
      params,
      returns,
      steps,
      result: `to${returns.replace('[]', 'List')}(${last})`,
    };
  }),
);

const ind = (n: number): string => '  '.repeat(n);

function callbackFn(f: Fn): string {
  const out: string[] = [
    `/**`,
    ` * ${f.doc}`,
    ` * @deprecated callback style; see ${f.domain}/index.ts`,
    ` */`,
  ];
  out.push(`export function ${f.name}Cb(${f.params}, cb: Callback<${f.returns}>): void {`);
  let depth = 1;
  f.steps.forEach((s, i) => {
    const err = i === 0 ? 'err' : `err${i + 1}`;
    out.push(`${ind(depth)}${s.call.replace(/\)$/, `, (${err}, ${s.out}) => {`).replace(/\(, /, '(')}`);
    depth++;
    out.push(
      `${ind(depth)}if (${err}) {`,
      `${ind(depth + 1)}log.warn("${f.name}: ${s.call.split('(')[0]} failed", ${err});`,
      `${ind(depth + 1)}return cb(${err});`,
      `${ind(depth)}}`,
    );
    if (s.check) out.push(`${ind(depth)}if (!${s.check}) return cb(new NotFoundError("${s.check}"));`);
    if (s.out === 'problems')
      out.push(`${ind(depth)}if (problems.length > 0) return cb(new ValidationError(problems));`);
  });
  out.push(`${ind(depth)}cb(null, ${f.result});`);
  for (let d = depth - 1; d >= 1; d--) out.push(`${ind(d)}});`);
  out.push('}', '');
  return out.join('\n');
}

function asyncFn(f: Fn): string {
  const out: string[] = [
    `/** ${f.doc} */`,
    `export async function ${f.name}(${f.params}): Promise<${f.returns}> {`,
  ];
  for (const s of f.steps) {
    out.push(`  const ${s.out} = await ${s.call};`);
    if (s.check) out.push(`  if (!${s.check}) throw new NotFoundError('${s.check}');`);
    if (s.out === 'problems') out.push(`  if (problems.length > 0) throw new ValidationError(problems);`);
  }
  out.push(`  return ${f.result};`, '}', '');
  return out.join('\n');
}

function shimFn(f: Fn): string {
  const args = f.params
    .split(', ')
    .map((p) => p.split(':')[0])
    .join(', ');
  return [
    `/** @deprecated Use \`${f.name}\` (async). Kept for the mobile app, which imports it directly. */`,
    `export function ${f.name}Cb(${f.params}, cb: Callback<${f.returns}>): void {`,
    `  ${f.name}(${args}).then((value) => cb(null, value), cb);`,
    '}',
    '',
  ].join('\n');
}

const HEADER = `// shipkit — order pipeline. This file grew from the 2019 prototype; everything lives here.
import { db } from './db';
import { log } from './log';
import { audit } from './audit';
import { rates, taxes } from './pricing-data';
import { warehouses } from './warehouses';
import { carriers } from './carriers';
import { gateway, ledger } from './payments-gateway';
import { mailer, templates } from './mail';
import { NotFoundError, ValidationError } from './errors';
import type * as T from './types';

export type Callback<V> = (err: Error | null, value?: V) => void;

const LOCK_TTL_MS = 30_000;
const STUCK_AFTER_HOURS = 48;
`;

const legacy = HEADER + '\n' + FNS.map(callbackFn).join('\n');
const moduleFile = (domain: string, withShims: boolean): string =>
  [
    `// ${domain}: split out of legacy.ts; async/await over the promise-based db client.`,
    `import { db } from '../db';`,
    `import { NotFoundError, ValidationError } from '../errors';`,
    withShims ? `import type { Callback } from '../callback';` : '',
    `import type * as T from '../types';`,
    '',
    ...FNS.filter((f) => f.domain === domain).map((f) => asyncFn(f) + (withShims ? '\n' + shimFn(f) : '')),
  ]
    .filter((l) => l !== '')
    .join('\n') + '\n';

const numbered = (text: string, from = 1): string =>
  text
    .split('\n')
    .map((l, i) => `${String(i + from).padStart(6)}→${l}`)
    .join('\n');

const typesFile = (): string => {
  const names = [
    ...new Set(
      FNS.flatMap((f) => [
        f.returns.replace('[]', ''),
        ...f.params.split(', ').map((p) => p.split(': ')[1]!),
      ]),
    ),
  ].filter((t) => /^[A-Z]/.test(t));
  return names
    .map((t) => {
      const fields = Array.from({ length: 4 + Math.floor(next() * 6) }, () =>
        pick([
          'id: string',
          'createdAt: string',
          'status: Status',
          'amount: Money',
          'currency: Currency',
          'customerId: string',
          'lines: Line[]',
          'warehouseId: string',
          'notes?: string',
          'updatedAt: string',
          'version: number',
          'meta: Record<string, string>',
        ]),
      );
      return `export interface ${t} {\n${[...new Set(fields)].map((f) => `  ${f};`).join('\n')}\n}\n`;
    })
    .join('\n');
};

// ------------------------------------------------------------------ tool outputs
const testNames = (f: Fn): string[] => [
  `${f.name} returns ${f.returns} for a valid input`,
  `${f.name} rejects a missing ${f.steps.find((s) => s.check)?.check ?? 'record'}`,
  `${f.name} propagates ${f.steps[0]!.call.split('(')[0]} errors`,
  `${f.name} is idempotent when retried`,
];

/** vitest output; the default reporter lists single tests only for files with failures, `verbose` lists all. */
function vitestRun(
  opts: { failing?: Map<string, string>; files?: string[]; verbose?: boolean } = {},
): string {
  const lines = [
    '',
    '> shipkit@2.3.0 test',
    `> vitest run${opts.verbose ? ' --reporter=verbose' : ''}`,
    '',
    ` RUN  v3.2.4 ${CWD}`,
    '',
  ];
  const failing = opts.failing ?? new Map<string, string>();
  let passed = 0;
  let failed = 0;
  const domains = opts.files ?? Object.keys(DOMAINS);
  for (const domain of domains) {
    const fns = FNS.filter((f) => f.domain === domain);
    const tests = fns.flatMap(testNames);
    const bad = tests.filter((t) => failing.has(t));
    passed += tests.length - bad.length;
    failed += bad.length;
    lines.push(
      ` ${bad.length ? '❯' : '✓'} test/${domain}.test.ts (${tests.length} tests${bad.length ? ` | ${bad.length} failed` : ''}) ${20 + Math.floor(next() * 300)}ms`,
    );
    if (opts.verbose || bad.length > 0)
      for (const t of tests)
        lines.push(`   ${failing.has(t) ? '×' : '✓'} ${t} ${1 + Math.floor(next() * 40)}ms`);
  }
  for (const [t, message] of failing) {
    const f = FNS.find((x) => t.startsWith(x.name + ' '))!;
    lines.push(
      '',
      `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failing.size} ⎯⎯⎯⎯⎯⎯⎯`,
      '',
      ` FAIL  test/${f.domain}.test.ts > ${f.domain} > ${t}`,
      message,
      ` ❯ src/${f.domain}/index.ts:${10 + Math.floor(next() * 60)}:${3 + Math.floor(next() * 20)}`,
      ` ❯ test/${f.domain}.test.ts:${20 + Math.floor(next() * 200)}:${5 + Math.floor(next() * 10)}`,
      '',
      '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯',
    );
  }
  lines.push(
    '',
    ` Test Files  ${failed ? `${new Set([...failing.keys()].map((t) => FNS.find((x) => t.startsWith(x.name + ' '))!.domain)).size} failed | ` : ''}${domains.length} passed (${domains.length})`,
    `      Tests  ${failed ? `${failed} failed | ` : ''}${passed} passed (${passed + failed})`,
    `   Start at  10:${String(10 + Math.floor(next() * 40)).padStart(2, '0')}:${String(Math.floor(next() * 60)).padStart(2, '0')}`,
    `   Duration  ${(2 + next() * 4).toFixed(2)}s (transform 412ms, setup 0ms, collect 1.21s, tests 1.83s, environment 1ms, prepare 604ms)`,
    '',
  );
  return lines.join('\n');
}

function tscErrors(n: number): string {
  const errs: string[] = [];
  for (let i = 0; i < n; i++) {
    const f = pick(FNS);
    const s = pick(f.steps);
    errs.push(
      pick([
        `src/${f.domain}/index.ts(${5 + i * 7},${9 + i}): error TS2339: Property 'then' does not exist on type 'void'.`,
        `src/${f.domain}/index.ts(${5 + i * 7},${15}): error TS2554: Expected 2 arguments, but got 1.`,
        `src/${f.domain}/index.ts(${5 + i * 7},${3}): error TS7006: Parameter '${s.out}' implicitly has an 'any' type.`,
        `src/api/routes.ts(${40 + i * 3},${12}): error TS2345: Argument of type 'Promise<${f.returns}>' is not assignable to parameter of type '${f.returns}'.`,
      ]),
    );
  }
  return errs.join('\n') + `\n\nFound ${n} errors in ${Math.min(n, 4)} files.\n`;
}

function grepOut(pattern: string, files: number): string {
  const lines: string[] = [];
  for (let i = 0; i < files; i++) {
    const f = pick(FNS);
    lines.push(
      `${pick(['src/api/routes.ts', 'src/jobs/nightly.ts', 'src/admin/dashboard.ts', `test/${f.domain}.test.ts`, 'src/webhooks/carrier.ts', 'mobile-bridge/index.ts'])}:${10 + Math.floor(next() * 300)}:  ${
        pattern.includes('Cb')
          ? `${f.name}Cb(${f.params
              .split(', ')
              .map((p) => p.split(':')[0])
              .join(', ')}, (err, value) => {`
          : `import { ${f.name}Cb } from '../legacy';`
      }`,
    );
  }
  return [...new Set(lines)].join('\n');
}

const routesFile = (async: boolean): string => {
  const out = [
    `import { Router } from 'express';`,
    async
      ? `import * as orders from '../orders';\nimport * as inventory from '../inventory';\nimport * as payments from '../payments';`
      : `import * as legacy from '../legacy';`,
    '',
    'export const router = Router();',
    '',
  ];
  for (const f of FNS) {
    const arg = f.params.split(', ')[0]!.split(':')[0]!;
    out.push(`/** ${f.doc} */`);
    out.push(
      `router.post('/${f.domain}/${f.name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}', ${async ? 'async ' : ''}(req, res, next) => {`,
    );
    if (async) {
      const awaited = f.name === 'listOpenOrders' || f.name === 'stockReport' ? '' : 'await ';
      out.push(
        `  try {`,
        `    const value = ${awaited}${f.domain}.${f.name}(req.body.${arg}${f.params.includes(',') ? ', req.body.options' : ''});`,
        `    res.json(value);`,
        `  } catch (err) {`,
        `    next(err);`,
        `  }`,
      );
    } else {
      out.push(
        `  legacy.${f.name}Cb(req.body.${arg}${f.params.includes(',') ? ', req.body.options' : ''}, (err, value) => {`,
        `    if (err) return next(err);`,
        `    res.json(value);`,
        `  });`,
      );
    }
    out.push('});', '');
  }
  return out.join('\n');
};

const diffStat = (): string => {
  const files = [
    ...Object.keys(DOMAINS).map((d) => `src/${d}/index.ts`),
    'src/legacy.ts',
    'src/api/routes.ts',
    'src/callback.ts',
    'src/db.ts',
    'src/admin/dashboard.ts',
    ...Object.keys(DOMAINS).map((d) => `test/${d}.test.ts`),
  ];
  let ins = 0;
  let del = 0;
  const rows = files.map((f) => {
    const a = Math.floor(next() * 220);
    const d = f.includes('legacy') ? 900 : Math.floor(next() * 120);
    ins += a;
    del += d;
    return ` ${f.padEnd(28)} | ${String(a + d).padStart(4)} ${'+'.repeat(Math.min(30, Math.ceil(a / 20)))}${'-'.repeat(Math.min(30, Math.ceil(d / 20)))}`;
  });
  return rows.join('\n') + `\n ${files.length} files changed, ${ins} insertions(+), ${del} deletions(-)\n`;
};

/** A file of ours that consumes the domain functions: callback style before, async after. */
const consumerFile = (title: string, fns: Fn[], async: boolean): string => {
  const out = [
    `// ${title}`,
    async
      ? fns
          .map((f) => `import { ${f.name} } from '../${f.domain}';`)
          .filter((l, i, a) => a.indexOf(l) === i)
          .join('\n')
      : `import * as legacy from '../legacy';`,
    `import { log } from '../log';`,
    '',
  ];
  for (const f of fns) {
    const args = f.params
      .split(', ')
      .map((p) => `input.${p.split(':')[0]}`)
      .join(', ');
    out.push(`/** Step "${f.name}": ${f.doc} */`);
    if (async) {
      out.push(
        `export async function step${f.name[0]!.toUpperCase()}${f.name.slice(1)}(input: StepInput): Promise<StepOutcome> {`,
        `  const started = Date.now();`,
        `  try {`,
        `    const value = await ${f.name}(${args});`,
        `    log.info('${f.name} ok', { ms: Date.now() - started });`,
        `    return { ok: true, value };`,
        `  } catch (err) {`,
        `    log.error('${f.name} failed', err);`,
        `    return { ok: false, error: String(err) };`,
        `  }`,
        `}`,
        '',
      );
    } else {
      out.push(
        `export function step${f.name[0]!.toUpperCase()}${f.name.slice(1)}(input: StepInput, done: (outcome: StepOutcome) => void): void {`,
        `  const started = Date.now();`,
        `  legacy.${f.name}Cb(${args}, (err, value) => {`,
        `    if (err) {`,
        `      log.error('${f.name} failed', err);`,
        `      return done({ ok: false, error: String(err) });`,
        `    }`,
        `    log.info('${f.name} ok', { ms: Date.now() - started });`,
        `    done({ ok: true, value });`,
        `  });`,
        `}`,
        '',
      );
    }
  }
  return out.join('\n');
};

/** \`git diff\` of a file replaced wholesale: every old line removed, every new line added. */
const fullDiff = (path: string, before: string, after: string): string => {
  const a = before.split('\n');
  const b = after.split('\n');
  return [
    `diff --git a/${path} b/${path}`,
    `index 3f9c2e1..8a0d4b7 100644`,
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -1,${a.length} +1,${b.length} @@`,
    ...a.map((l) => `-${l}`),
    ...b.map((l) => `+${l}`),
  ].join('\n');
};

// ------------------------------------------------------------------ the session
const w = new ClaudeWriter(next, {
  cwd: CWD,
  sessionId: fakeUuid(next),
  start: '2026-11-24T09:02:17.512Z',
  model: 'claude-sonnet-4-5-20250929',
  version: '2.0.50',
  gitBranch: 'refactor/async-pipeline',
});
const read = (path: string, content: string): void => {
  const [id] = w.tools(['Read', { file_path: `${CWD}/${path}` }]);
  w.result(id!, numbered(content), {
    toolUseResult: {
      type: 'text',
      file: {
        filePath: `${CWD}/${path}`,
        numLines: content.split('\n').length,
        startLine: 1,
        totalLines: content.split('\n').length,
      },
    },
  });
};
const bash = (command: string, description: string, output: string, isError = false): void => {
  const [id] = w.tools(['Bash', { command, description }]);
  w.result(id!, output, {
    isError,
    toolUseResult: {
      stdout: isError ? '' : output,
      stderr: isError ? output : '',
      interrupted: false,
      isImage: false,
    },
  });
};
const write = (path: string, content: string): void => {
  const [id] = w.tools(['Write', { file_path: `${CWD}/${path}`, content }]);
  w.result(id!, `File created successfully at: ${CWD}/${path}`, {
    toolUseResult: { type: 'create', filePath: `${CWD}/${path}`, structuredPatch: [] },
  });
};
const edit = (path: string, oldString: string, newString: string, fail = false): void => {
  const [id] = w.tools([
    'Edit',
    { file_path: `${CWD}/${path}`, old_string: oldString, new_string: newString },
  ]);
  if (fail)
    w.result(
      id!,
      `<tool_use_error>String to replace not found in file.\nString: ${oldString}</tool_use_error>`,
      { isError: true, toolUseResult: 'Error: String to replace not found in file.' },
    );
  else
    w.result(
      id!,
      `The file ${CWD}/${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${numbered(newString, 40)}`,
      {
        toolUseResult: {
          filePath: `${CWD}/${path}`,
          oldString,
          newString,
          structuredPatch: [],
          userModified: false,
        },
      },
    );
};
const todos = (items: [string, string][]): void => {
  const list = items.map(([content, status]) => ({
    content,
    status,
    activeForm: content.replace(/^(\w+)/, (m) => m + 'ing'),
  }));
  const [id] = w.tools(['TodoWrite', { todos: list }]);
  w.result(
    id!,
    'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable',
    { toolUseResult: { oldTodos: [], newTodos: list } },
  );
};

const claudeMd = `# shipkit\n\n- Node 20, TypeScript strict, vitest. Run \`npm test\` and \`npm run lint\` before declaring done.\n- The mobile app (separate repo) imports from \`shipkit/legacy\`; do not break those exports without asking.\n- db client: \`src/db.ts\` now returns promises (since 2.2); callbacks are adapted in legacy.ts.\n- Never run migrations against the shared staging database from a dev machine.\n`;

w.user(
  'Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.',
  { isMeta: true },
  0,
);
w.user(
  '<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>sonnet</command-args>',
);
w.user(
  '<local-command-stdout>Set model to \u001b[1msonnet (claude-sonnet-4-5-20250929)\u001b[22m</local-command-stdout>',
);
w.user([
  {
    type: 'text',
    text: `<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# claudeMd\nContents of ${CWD}/CLAUDE.md (project instructions, checked into the codebase):\n\n${claudeMd}\n      IMPORTANT: this context may or may not be relevant to your tasks.\n</system-reminder>`,
  },
  {
    type: 'text',
    text: 'src/legacy.ts has grown to ~900 lines of nested callbacks and every change there breaks something. Please refactor it: split it into one module per domain (orders, pricing, inventory, shipping, payments, notifications) under src/<domain>/index.ts, use async/await on the promise db client, and update src/api/routes.ts to use the new modules. Keep behaviour identical; all tests must pass. Use a todo list, this will take a while.',
  },
]);
w.thinking(
  'The person wants a structural refactor with identical behaviour. First: read CLAUDE.md constraints (already attached — note the mobile app imports from shipkit/legacy, so removing exports needs asking), then package.json, the legacy file, db.ts, routes, and run the tests to get a baseline. Parallel reads where independent.',
);
w.text(
  "I'll start by getting a baseline: the project layout, the legacy module, the db client and the current test results.",
);
todos([
  ['Read legacy.ts, db.ts, routes.ts and get a test baseline', 'in_progress'],
  ['Create src/<domain>/index.ts modules with async/await', 'pending'],
  ['Switch src/api/routes.ts to the new modules', 'pending'],
  ['Run tests and lint; fix failures', 'pending'],
]);
const [glob, pkg] = w.tools(
  ['Glob', { pattern: '**/*.ts', path: CWD }],
  ['Read', { file_path: `${CWD}/package.json` }],
);
const fileList = [
  'src/legacy.ts',
  'src/db.ts',
  'src/log.ts',
  'src/audit.ts',
  'src/errors.ts',
  'src/types.ts',
  'src/mail.ts',
  'src/carriers.ts',
  'src/warehouses.ts',
  'src/pricing-data.ts',
  'src/payments-gateway.ts',
  'src/api/routes.ts',
  'src/admin/dashboard.ts',
  'src/jobs/nightly.ts',
  'src/webhooks/carrier.ts',
  ...Object.keys(DOMAINS).map((d) => `test/${d}.test.ts`),
  'test/helpers/fake-db.ts',
  'vitest.config.ts',
];
w.result(glob!, fileList.map((f) => `${CWD}/${f}`).join('\n'), {
  toolUseResult: { filenames: fileList, durationMs: 41, numFiles: fileList.length, truncated: false },
});
const pkgJson = JSON.stringify(
  {
    name: 'shipkit',
    version: '2.3.0',
    type: 'module',
    scripts: {
      build: 'tsc -p .',
      test: 'vitest run',
      lint: 'eslint . --max-warnings 0',
      'test:e2e': 'playwright test',
    },
    dependencies: { express: '^4.21.2', pg: '^8.13.1', nodemailer: '^6.9.16', zod: '^3.24.1' },
    devDependencies: {
      typescript: '~5.7.2',
      vitest: '^3.2.4',
      eslint: '^9.17.0',
      '@playwright/test': '^1.49.1',
      '@types/express': '^5.0.0',
      '@types/node': '^20.17.10',
    },
  },
  null,
  2,
);
w.result(pkg!, numbered(pkgJson), {
  toolUseResult: {
    type: 'text',
    file: {
      filePath: `${CWD}/package.json`,
      content: pkgJson,
      numLines: pkgJson.split('\n').length,
      startLine: 1,
      totalLines: pkgJson.split('\n').length,
    },
  },
});
read('src/legacy.ts', legacy);
const dbFile = `// Promise-based db client (since 2.2). legacy.ts still adapts it to callbacks via callbackify.\nimport pg from 'pg';\nimport { callbackify } from 'node:util';\n\nconst pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });\n\n${[
  ...new Set(
    FNS.flatMap((f) => f.steps.map((s) => s.call))
      .filter((c) => c.startsWith('db.'))
      .map((c) => c.split('(')[0]!.slice(3)),
  ),
]
  .map(
    (m) =>
      `export async function ${m}(...args: unknown[]): Promise<any> {\n  const { rows } = await pool.query(SQL.${m}, args);\n  return rows${m.startsWith('get') ? '[0] ?? null' : ''};\n}`,
  )
  .join(
    '\n\n',
  )}\n\n/** Callback adapters used by legacy.ts. */\nexport const db = new Proxy({} as Record<string, Function>, {\n  get: (_t, name: string) => callbackify((SQL as any)[name] ? (exports as any)[name] : () => Promise.reject(new Error('no query ' + name))),\n});\n`;
read('src/db.ts', dbFile);
read('src/types.ts', typesFile());
read('src/api/routes.ts', routesFile(false));
bash(
  'npm test -- --reporter=verbose 2>&1 | tail -300',
  'Run the test suite for a baseline',
  vitestRun({ verbose: true }),
);
w.thinking(
  `Baseline: all ${FNS.length * 4} tests pass. Plan: for each domain write src/<domain>/index.ts with async functions that await the promise db client directly (db.ts exports them). legacy.ts has ${FNS.length} callback functions. The mobile app imports from legacy — CLAUDE.md says don't break those exports without asking. I'll keep legacy.ts for now and ask before removing it... Actually the request is explicit about splitting; I'll move the logic and leave legacy.ts re-exporting for the moment.`,
);
w.text(
  `Baseline is green (${FNS.length * 4} tests). legacy.ts holds ${FNS.length} callback-style functions across six domains. I'll create one module per domain with async/await versions, starting with orders.`,
);
todos([
  ['Read legacy.ts, db.ts, routes.ts and get a test baseline', 'completed'],
  ['Create src/<domain>/index.ts modules with async/await', 'in_progress'],
  ['Switch src/api/routes.ts to the new modules', 'pending'],
  ['Run tests and lint; fix failures', 'pending'],
]);
const domains = Object.keys(DOMAINS);
for (const d of domains.slice(0, 3)) {
  read(
    `test/${d}.test.ts`,
    FNS.filter((f) => f.domain === d)
      .map(
        (f) =>
          `describe('${f.name}', () => {\n${testNames(f)
            .map(
              (t) =>
                `  it('${t.slice(f.name.length + 1)}', async () => {\n    const db = fakeDb({ ${f.steps.map((s) => `${s.out}: fixtures.${s.out}`).join(', ')} });\n    const value = await run(${f.name}Cb, db, ${f.params
                  .split(', ')
                  .map((p) => `fixtures.${p.split(':')[0]}`)
                  .join(', ')});\n    expect(value).toMatchSnapshot();\n  });`,
            )
            .join('\n')}\n});`,
      )
      .join('\n\n'),
  );
  write(`src/${d}/index.ts`, moduleFile(d, false));
}
// The person rejects a destructive command.
const [rm] = w.tools([
  'Bash',
  {
    command: 'git rm src/legacy.ts && git commit -m "remove legacy.ts"',
    description: 'Remove the legacy module',
  },
]);
w.result(
  rm!,
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
  { isError: true, toolUseResult: "Error: The user doesn't want to proceed with this tool use." },
);
w.user([{ type: 'text', text: '[Request interrupted by user for tool use]' }], {}, 500);
// Correction midway.
w.user(
  "Wait — do NOT delete legacy.ts and do not rename the exported *Cb functions. The mobile app imports processOrderCb and friends directly from shipkit/legacy. Keep every *Cb export as a deprecated shim that calls the new async function. Also put the Callback type in its own file so the domain modules don't import legacy.",
  {},
  45000,
);
w.thinking(
  'Correction: keep legacy.ts exports as deprecated shims over the async functions; the Callback type moves to src/callback.ts. The remaining three domains get the same pattern, and the three modules already written need shims only in legacy.ts (not in the modules). Simplest consistent layout: shims live next to each async function and legacy.ts re-exports them — that way legacy stays a thin barrel.',
);
w.text(
  "Understood — legacy.ts stays, and every `*Cb` export remains as a deprecated shim over the new async function. I'll put `Callback` in src/callback.ts and add the shims next to each async function, so legacy.ts becomes a re-export barrel.",
);
write(
  'src/callback.ts',
  `/** Node-style callback kept for the legacy *Cb API (the mobile app uses it). */\nexport type Callback<V> = (err: Error | null, value?: V) => void;\n`,
);
for (const d of domains) write(`src/${d}/index.ts`, moduleFile(d, true));
edit(
  'src/legacy.ts',
  'export type Callback<V> = (err: Error | null, value?: V) => void;',
  "export type { Callback } from './callback';",
  false,
);
edit('src/legacy.ts', FNS[0]!.steps[0]!.call + ' {', '', true);
w.text(
  'That edit failed because the callback bodies differ from what I matched; replacing the whole file with the barrel is cleaner.',
);
const barrel = `// Deprecated entry point kept for the mobile app. Everything here re-exports the domain modules.\nexport type { Callback } from './callback';\n${domains
  .map(
    (d) =>
      `export { ${FNS.filter((f) => f.domain === d)
        .map((f) => `${f.name}Cb`)
        .join(', ')} } from './${d}';`,
  )
  .join('\n')}\n`;
write('src/legacy.ts', barrel);
bash('npx tsc -p . --noEmit 2>&1 | head -40', 'Type-check after the split', tscErrors(9), true);
w.thinking(
  'The type errors are in routes.ts (still passing promises where values were expected) and a few parameters the callbacks used to type implicitly. Update routes.ts to the async modules now; then fix remaining implicit anys.',
);
write('src/api/routes.ts', routesFile(true));
bash('npx tsc -p . --noEmit 2>&1 | head -40', 'Type-check again', tscErrors(3), true);
for (let i = 0; i < 3; i++) {
  const f = FNS[(i * 7) % FNS.length]!;
  const s = f.steps[1] ?? f.steps[0]!;
  edit(
    `src/${f.domain}/index.ts`,
    `  const ${s.out} = await ${s.call};`,
    `  const ${s.out}: T.${f.returns.replace('[]', '')} = await ${s.call};`,
  );
}
bash('npx tsc -p . --noEmit', 'Type-check', '');
const failing = new Map<string, string>([
  [
    testNames(FNS[1]!)[2]!,
    `AssertionError: expected [Function] to throw error including 'db down' but got 'Cannot read properties of null (reading \\'status\\')'`,
  ],
  [
    testNames(FNS[9]!)[1]!,
    `AssertionError: promise resolved "{ id: 'q_1', lines: [] }" instead of rejecting\n\n- Expected: NotFoundError: priceList\n+ Received: { id: 'q_1', lines: [] }`,
  ],
  [
    testNames(FNS[14]!)[3]!,
    `Error: Snapshot \`${FNS[14]!.name} > is idempotent when retried 1\` mismatched\n\n- Expected\n+ Received\n\n  Object {\n-   "reserved": 3,\n+   "reserved": 6,\n    "sku": "SKU-1042",\n  }`,
  ],
]);
bash('npm test 2>&1 | tail -120', 'Run the tests', vitestRun({ failing }), true);
w.thinking(
  `Three failures. (1) ${FNS[1]!.name}: the callback version checked err before touching the value; in the async version an awaited null reaches .status — missing not-found check. (2) ${FNS[9]!.name}: the old code returned NotFoundError when the price list was missing; my version lost the check because the step order changed. (3) ${FNS[14]!.name}: retries double-reserve — the legacy code relied on lockOrder serialising calls; the async version must await the lock before reserving.`,
);
for (const i of [1, 9, 14]) {
  const f = FNS[i]!;
  const s = f.steps[0]!;
  edit(
    `src/${f.domain}/index.ts`,
    `  const ${s.out} = await ${s.call};`,
    `  const ${s.out} = await ${s.call};\n  if (!${s.out}) throw new NotFoundError('${s.out}');`,
  );
}
read(
  `test/${FNS[14]!.domain}.test.ts`,
  FNS.filter((f) => f.domain === FNS[14]!.domain)
    .map((f) =>
      testNames(f)
        .map((t) => `it('${t}', async () => { /* … */ });`)
        .join('\n'),
    )
    .join('\n'),
);
bash('npm test 2>&1 | tail -120', 'Run the tests again', vitestRun());
todos([
  ['Read legacy.ts, db.ts, routes.ts and get a test baseline', 'completed'],
  ['Create src/<domain>/index.ts modules with async/await', 'completed'],
  ['Switch src/api/routes.ts to the new modules', 'completed'],
  ['Run tests and lint; fix failures', 'in_progress'],
]);
w.text(
  `All ${FNS.length * 4} tests pass. legacy.ts is now a barrel of deprecated \`*Cb\` shims; routes use the async modules.`,
  'end_turn',
);

// Turn: a screenshot of the broken dashboard.
const shot1 = screenshotPng(480, 300, 5).toString('base64');
w.user(
  [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot1 } },
    {
      type: 'text',
      text: 'The admin dashboard now shows 0 open orders and an empty stock table (screenshot). It worked before the refactor.',
    },
  ],
  { imagePasteIds: [1] },
  240000,
);
w.thinking(
  'Empty dashboard after the refactor: listOpenOrders and stockReport are called from routes without await — I left those two un-awaited in routes.ts, so res.json receives a Promise, which serialises as {}. Check dashboard.ts and routes.ts.',
);
const [g1, r1] = w.tools(
  ['Grep', { pattern: 'listOpenOrders|stockReport', path: CWD, output_mode: 'content', '-n': true }],
  ['Read', { file_path: `${CWD}/src/admin/dashboard.ts` }],
);
w.result(g1!, grepOut('listOpenOrders', 8), {
  toolUseResult: { mode: 'content', numFiles: 4, filenames: [], numLines: 8 },
});
const dashboard = `import { html } from './html';\n\nexport async function renderDashboard(api: Api): Promise<string> {\n  const open = await api.post('/orders/list-open-orders', { filter: { status: 'open' } });\n  const stock = await api.post('/inventory/stock-report', { warehouseId: 'all' });\n  return html\`\n    <h1>Open orders (\${open.length ?? 0})</h1>\n    \${(open ?? []).map(row).join('')}\n    <h2>Stock</h2>\n    \${table(stock.rows ?? [])}\n  \`;\n}\n`;
w.result(r1!, numbered(dashboard), {
  toolUseResult: {
    type: 'text',
    file: {
      filePath: `${CWD}/src/admin/dashboard.ts`,
      content: dashboard,
      numLines: 12,
      startLine: 1,
      totalLines: 12,
    },
  },
});
w.text(
  'Found it: in routes.ts the handlers for `listOpenOrders` and `stockReport` call the async function without `await`, so `res.json` serialises a pending Promise as `{}` and the dashboard sees no rows.',
);
edit(
  'src/api/routes.ts',
  '    const value = orders.listOpenOrders(req.body.filter);',
  '    const value = await orders.listOpenOrders(req.body.filter);',
);
edit(
  'src/api/routes.ts',
  '    const value = inventory.stockReport(req.body.warehouseId);',
  '    const value = await inventory.stockReport(req.body.warehouseId);',
);
bash(
  'npx playwright test e2e/dashboard.spec.ts 2>&1 | tail -30',
  'Run the dashboard e2e test',
  `\nRunning 3 tests using 2 workers\n\n  ✓  1 [chromium] › e2e/dashboard.spec.ts:8:3 › dashboard › lists open orders (2.1s)\n  ✓  2 [chromium] › e2e/dashboard.spec.ts:19:3 › dashboard › shows the stock table (1.8s)\n  ✓  3 [chromium] › e2e/dashboard.spec.ts:31:3 › dashboard › totals match the API (2.4s)\n\n  3 passed (6.9s)\n`,
);
const [shot] = w.tools([
  'mcp__playwright__browser_take_screenshot',
  { element: 'dashboard', ref: 'e12', filename: 'dashboard-after-fix.png' },
]);
w.result(shot!, [
  {
    type: 'text',
    text: "Took the element screenshot of 'dashboard' and saved it as /tmp/playwright-mcp-output/dashboard-after-fix.png",
  },
  {
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: screenshotPng(480, 300, 2).toString('base64') },
  },
]);
w.text(
  'The dashboard shows the open orders and the stock table again (screenshot above), and the e2e tests pass.',
  'end_turn',
);

// Turn: migrate our own consumers off the shims.
w.user(
  "Before the PR: src/jobs/nightly.ts and src/webhooks/carrier.ts are ours, not the mobile app's — migrate them off the *Cb shims to the async functions too.",
  {},
  180000,
);
w.thinking(
  'Two consumer files. Find every *Cb call site first so nothing is missed, then read both files, rewrite them with async steps, and re-check the domain module signatures they call.',
);
const nightlyFns = FNS.filter((_, i) => i % 2 === 0);
const webhookFns = FNS.filter((_, i) => i % 2 === 1);
const [cbGrep] = w.tools([
  'Grep',
  { pattern: 'Cb\\(', path: `${CWD}/src`, output_mode: 'content', '-n': true },
]);
w.result(
  cbGrep!,
  FNS.map(
    (f, i) =>
      `${i % 2 === 0 ? 'src/jobs/nightly.ts' : 'src/webhooks/carrier.ts'}:${14 + i * 13}:  legacy.${f.name}Cb(${f.params
        .split(', ')
        .map((p) => `input.${p.split(':')[0]}`)
        .join(', ')}, (err, value) => {`,
  ).join('\n'),
  { toolUseResult: { mode: 'content', numFiles: 2, filenames: [], numLines: FNS.length } },
);
const [n1, n2] = w.tools(
  ['Read', { file_path: `${CWD}/src/jobs/nightly.ts` }],
  ['Read', { file_path: `${CWD}/src/webhooks/carrier.ts` }],
);
const nightlyOld = consumerFile('Nightly batch: runs every step for the previous day.', nightlyFns, false);
const webhookOld = consumerFile('Carrier webhooks: one step per event type.', webhookFns, false);
w.result(n1!, numbered(nightlyOld), {
  toolUseResult: {
    type: 'text',
    file: {
      filePath: `${CWD}/src/jobs/nightly.ts`,
      numLines: nightlyOld.split('\n').length,
      startLine: 1,
      totalLines: nightlyOld.split('\n').length,
    },
  },
});
w.result(n2!, numbered(webhookOld), {
  toolUseResult: {
    type: 'text',
    file: {
      filePath: `${CWD}/src/webhooks/carrier.ts`,
      numLines: webhookOld.split('\n').length,
      startLine: 1,
      totalLines: webhookOld.split('\n').length,
    },
  },
});
for (const d of domains) read(`src/${d}/index.ts`, moduleFile(d, true));
w.text(
  'Both files wrap each call in the same log-and-report pattern; the async version keeps the outcome shape, so callers of the steps do not change.',
);
write(
  'src/jobs/nightly.ts',
  consumerFile('Nightly batch: runs every step for the previous day.', nightlyFns, true),
);
write(
  'src/webhooks/carrier.ts',
  consumerFile('Carrier webhooks: one step per event type.', webhookFns, true),
);
bash(
  'npm test 2>&1 | tail -150',
  'Run the tests',
  vitestRun({
    failing: new Map([
      [
        testNames(FNS[4]!)[3]!,
        `Error: Test timed out in 5000ms.\nIf this is a long-running test, pass a timeout value as the last argument or configure it globally with "testTimeout".`,
      ],
    ]),
  }),
  true,
);
w.thinking(
  `The timeout: step${FNS[4]!.name[0]!.toUpperCase()}${FNS[4]!.name.slice(1)} is awaited by the nightly runner, but the test's fake db never resolves lockOrder for a retried call — the old callback code called done() even when the lock was held. Restore that: treat a held lock as a no-op outcome.`,
);
edit(
  'src/jobs/nightly.ts',
  `    const value = await ${FNS[4]!.name}(`,
  `    if (await isLocked(input.orderId)) return { ok: true, value: null };\n    const value = await ${FNS[4]!.name}(`,
);
bash('npm test 2>&1 | tail -150', 'Run the tests again', vitestRun());
w.text('Both consumers now call the async functions directly; the suite is green again.', 'end_turn');

// Final turn: full suite, lint, summary.
w.user(
  'Good. Run the full suite and lint, fix what comes up, then give me a summary of the changes for the PR description.',
  {},
  120000,
);
bash(
  'npm test -- --reporter=verbose 2>&1 | tail -300',
  'Run the full test suite',
  vitestRun({ verbose: true }),
);
const lintOut =
  domains
    .map(
      (d, i) =>
        `${CWD}/src/${d}/index.ts\n  ${3 + i}:10  error  'ValidationError' is defined but never used  @typescript-eslint/no-unused-vars\n  ${5 + i}:1   error  Import "T" is only used as types                   @typescript-eslint/consistent-type-imports`,
    )
    .join('\n\n') +
  `\n\n✖ ${domains.length * 2} problems (${domains.length * 2} errors, 0 warnings)\n  ${domains.length} errors and 0 warnings potentially fixable with the \`--fix\` option.\n`;
bash('npm run lint 2>&1 | tail -60', 'Run the linter', lintOut, true);
bash(
  'npx eslint --fix src && npm run lint',
  'Auto-fix lint errors and re-run',
  `\n> shipkit@2.3.0 lint\n> eslint . --max-warnings 0\n\n${domains
    .slice(0, 3)
    .map(
      (d) =>
        `${CWD}/src/${d}/index.ts\n  3:10  error  'ValidationError' is defined but never used  @typescript-eslint/no-unused-vars`,
    )
    .join('\n\n')}\n\n✖ 3 problems (3 errors, 0 warnings)\n`,
  true,
);
for (const d of domains.slice(0, 3))
  edit(
    `src/${d}/index.ts`,
    `import { NotFoundError, ValidationError } from '../errors';`,
    `import { NotFoundError } from '../errors';`,
  );
bash(
  'npm run lint && npm test 2>&1 | tail -12',
  'Lint and test',
  `\n> shipkit@2.3.0 lint\n> eslint . --max-warnings 0\n\n${vitestRun().split('\n').slice(-6).join('\n')}`,
);
bash('git diff --stat main', 'Summarise the diff', diffStat());
bash(
  'git diff main -- src/api/routes.ts',
  'Show the routes diff for the PR text',
  fullDiff('src/api/routes.ts', routesFile(false), routesFile(true)),
);
w.text(
  `## Refactor: split legacy.ts into async domain modules\n\n- **New modules** \`src/{${domains.join(',')}}/index.ts\`: ${FNS.length} functions rewritten with async/await over the promise db client (no more callbackify round-trips).\n- **Compatibility**: every \`*Cb\` export is kept as a deprecated shim (\`fn(...).then(v => cb(null, v), cb)\`) and \`src/legacy.ts\` is now a re-export barrel, so the mobile app's \`shipkit/legacy\` imports keep working. \`Callback\` moved to \`src/callback.ts\`.\n- **Routes** use the async modules directly; two handlers (\`listOpenOrders\`, \`stockReport\`) were missing \`await\`, which emptied the admin dashboard — fixed and covered by the e2e test.\n- **Behaviour fixes found by the tests**: restored three not-found checks that the nesting used to enforce, and the reservation retry now awaits the order lock (no double reservation).\n- Tests: ${FNS.length * 4}/${FNS.length * 4} unit, 3/3 e2e; lint clean.`,
  'end_turn',
);

/** The generated session; computed once at import (the generator's state is module-level). */
export const EXAMPLE = w.jsonl();
export const EXAMPLE_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'examples',
  'session.claude.jsonl',
);

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(dirname(EXAMPLE_PATH), { recursive: true });
  writeFileSync(EXAMPLE_PATH, EXAMPLE);
  console.log(
    `examples/session.claude.jsonl: ${w.lines.length} lines, ${(EXAMPLE.length / 1024).toFixed(0)} KB`,
  );
}
