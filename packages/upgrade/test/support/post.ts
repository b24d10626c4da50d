import { Graph, interrupt, node } from "@graph/core";
import { drop, upgradable } from "../../src/index.js";

/**
 * A blog-post workflow in versions: v1 plans, writes a draft, waits for an approval, publishes. Each v2 is one kind
 * of change a team ships while v1 workflows wait at `approve`.
 */
const plan = node({ name: "plan", output: "outline" }, async ({ topic }: { topic: string }) => `outline of ${topic}`);
const write = node({ name: "write", output: "draft" }, async ({ outline }: { outline: string }) => `draft: ${outline}`);
const approve = interrupt({ name: "approve", input: "draft", response: "decision" });
const publish = node(
  { name: "publish", output: "post" },
  ({ draft, decision }: { draft: string; decision: string }) => `${draft} [${decision}]`,
);

export const v1 = () => upgradable(new Graph([plan, write, approve, publish], { name: "post" }), { label: "v1" });

/** (a) a changed node body: publish adds a signature. */
export const v2Changed = () =>
  upgradable(
    new Graph(
      [
        plan,
        write,
        approve,
        node(
          { name: "publish", output: "post" },
          ({ draft, decision }: { draft: string; decision: string }) => `${draft} [${decision}] — v2`,
        ),
      ],
      { name: "post" },
    ),
    { label: "v2" },
  );

/** (b) an added node: count the draft's words. */
export const v2Added = () =>
  upgradable(
    new Graph(
      [
        plan,
        write,
        approve,
        publish,
        node({ name: "count", output: "words" }, ({ draft }: { draft: string }) => draft.split(" ").length),
      ],
      { name: "post" },
    ),
    { label: "v2" },
  );

/** (c) a renamed value: `draft` is now `body`; with or without the migration that renames the stored one. */
export const v2Renamed = (withMigration: boolean) =>
  upgradable(
    new Graph(
      [
        plan,
        node({ name: "write", output: "body" }, async ({ outline }: { outline: string }) => `draft: ${outline}`),
        interrupt({ name: "approve", input: "body", response: "decision" }),
        node(
          { name: "publish", output: "post" },
          ({ body, decision }: { body: string; decision: string }) => `${body} [${decision}]`,
        ),
      ],
      { name: "post" },
    ),
    { label: "v2", migrations: withMigration ? [{ from: "v1", rename: { draft: "body" } }] : [] },
  );

/** (d) a removed interrupt: v2 publishes without approval; with or without the migration that drops the pause. */
export const v2NoApproval = (withMigration: boolean) =>
  upgradable(
    new Graph(
      [plan, write, node({ name: "publish", output: "post" }, ({ draft }: { draft: string }) => `${draft} [auto]`)],
      { name: "post" },
    ),
    { label: "v2", migrations: withMigration ? [{ from: "v1", pause: { approve: drop } }] : [] },
  );

/** (c') a transformed value: v2 publishes drafts in capitals, and the migration upper-cases the stored one. */
export const v2Shouting = (transform: (old: unknown) => string) =>
  upgradable(
    new Graph(
      [
        plan,
        write,
        approve,
        node(
          { name: "publish", output: "post" },
          ({ draft, decision }: { draft: string; decision: string }) => `${draft} [${decision.toUpperCase()}]`,
        ),
      ],
      { name: "post" },
    ),
    { label: "v2", migrations: [{ from: "v1", transform: { draft: transform } }] },
  );
