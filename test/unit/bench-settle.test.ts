import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * bench/lib/settle.mjs settlePlan: which PostgreSQL databases the bench vacuums before measuring,
 * and which step issues the CHECKPOINT. A CHECKPOINT covers the whole server, so a second one
 * only adds I/O, and none leaves the checkpointer to write the seeding's pages during the
 * measurement that follows. Carrying a plan out needs a database, which this tier does not have,
 * so the plan is checked, and settle only for the plans it refuses before connecting. An ES
 * module, which this tier does not load, so a node child imports it and prints what it returned.
 */
const SETTLE = join(__dirname, '..', '..', 'bench', 'lib', 'settle.mjs');

interface Step {
  database: 'parse' | 'ours';
  checkpoint: boolean;
}

interface Run {
  store: 'postgres' | 'mongodb';
  peersOnly: boolean;
  parse: boolean;
}

/** settlePlan for each run, from one node child. */
function plans(runs: Run[]): Step[][] {
  const script = `import { settlePlan } from ${JSON.stringify(SETTLE)};
process.stdout.write(JSON.stringify(${JSON.stringify(runs)}.map(settlePlan)));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  ) as Step[][];
}

const RUNS: Array<[string, Run, Step[]]> = [
  [
    'ours on PostgreSQL with Parse: Parse vacuumed, then ours, whose analyze checkpoints',
    { store: 'postgres', peersOnly: false, parse: true },
    [
      { database: 'parse', checkpoint: false },
      { database: 'ours', checkpoint: true },
    ],
  ],
  [
    'ours on MongoDB with Parse: Parse alone, checkpointing itself',
    { store: 'mongodb', peersOnly: false, parse: true },
    [{ database: 'parse', checkpoint: true }],
  ],
  [
    '--peers-only: Parse alone, checkpointing itself, even with --store postgres',
    { store: 'postgres', peersOnly: true, parse: true },
    [{ database: 'parse', checkpoint: true }],
  ],
  [
    'ours on PostgreSQL without Parse: ours alone',
    { store: 'postgres', peersOnly: false, parse: false },
    [{ database: 'ours', checkpoint: true }],
  ],
  [
    'ours on MongoDB without Parse: nothing on PostgreSQL to settle',
    { store: 'mongodb', peersOnly: false, parse: false },
    [],
  ],
  [
    '--peers-only without Parse: nothing on PostgreSQL to settle',
    { store: 'postgres', peersOnly: true, parse: false },
    [],
  ],
];

/** Every run the bench's flags allow, for what must hold whatever the run. */
const EVERY_RUN: Run[] = (['postgres', 'mongodb'] as const).flatMap((store) =>
  [false, true].flatMap((peersOnly) => [false, true].map((parse) => ({ store, peersOnly, parse }))),
);

describe('bench: settling the PostgreSQL databases before measuring', () => {
  let got: Step[][];
  let every: Step[][];
  beforeAll(() => {
    got = plans(RUNS.map(([, run]) => run));
    every = plans(EVERY_RUN);
  });

  it.each(RUNS.map(([name, run, want], i) => [name, run, want, i] as const))('%s', (_name, _run, want, i) => {
    expect(got[i]).toEqual(want);
  });

  it('issues exactly one CHECKPOINT whenever it vacuums anything, and none otherwise', () => {
    for (const steps of every) {
      expect(steps.filter((s) => s.checkpoint)).toHaveLength(steps.length > 0 ? 1 : 0);
    }
  });

  it("vacuums Parse's database before ours, so that the one CHECKPOINT comes last", () => {
    for (const steps of every) {
      const order = steps.map((s) => s.database);
      if (order.includes('parse') && order.includes('ours')) expect(order).toEqual(['parse', 'ours']);
      if (steps.length > 0) expect(steps.at(-1)?.checkpoint).toBe(true);
    }
  });

  it('refuses, before connecting to anything, a plan it would not carry out as written', () => {
    const script = `import { settle } from ${JSON.stringify(SETTLE)};
const outcome = (steps) => settle(steps, { env: {}, adminUrl: 'postgres://127.0.0.1:1/none' }).then(
  () => 'done',
  (e) => e.message,
);
process.stdout.write(JSON.stringify(await Promise.all([
  outcome([]),
  outcome([{ database: 'ours', checkpoint: false }]),
  outcome([{ database: 'pocketbase', checkpoint: true }]),
])));`;
    expect(
      JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })),
    ).toEqual(['done', "settle: ours' analyze always checkpoints", 'settle: unknown database pocketbase']);
  });
});
