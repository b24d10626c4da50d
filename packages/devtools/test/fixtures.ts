import { Graph, interrupt, node } from "@graph/core";
import { z } from "zod";

/** The answer the review's approval expects: an object, not a boolean. */
export const Approval = z.object({ approved: z.boolean(), note: z.string().min(1) });

/** draft → ⏸ approval (answer: Approval) → publish. */
export function typedReview() {
  const draft = node({ inputs: { topic: z.string().min(1) }, output: "draft" }, function draft({ topic }) {
    return `About ${topic}`;
  });
  const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
  const publish = node(
    { output: "published" },
    function publish({ draft, decision }: { draft: string; decision: z.infer<typeof Approval> }) {
      return decision.approved ? `${draft} (${decision.note})` : `rejected: ${decision.note}`;
    },
  );
  return new Graph([draft, approval, publish], { name: "review" });
}

/** One node that waits `ms` or until it is stopped. */
export function slowGraph() {
  const wait = node({ inputs: { ms: z.number() }, output: "waited" }, async function wait({ ms }, ctx) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return ctx.signal.aborted ? "stopped" : "done";
  });
  return new Graph([wait], { name: "slow" });
}

/** double(n) → doubled → add(doubled) → total: a fork that edits `doubled` changes `total`. */
export function calcGraph() {
  const double = node({ output: "doubled" }, function double({ n }: { n: number }) {
    return n * 2;
  });
  const add = node({ output: "total" }, function add({ doubled }: { doubled: number }) {
    return doubled + 1;
  });
  return new Graph([double, add], { name: "calc" });
}

/** A node name that is markup: it must show as text and inject nothing. */
export const EVIL_NAME = "<img src=x onerror=alert(1)> & 'q'";

export function evilGraph() {
  const evil = node({ name: EVIL_NAME, output: "said" }, function say({ words }: { words: string }) {
    return `<script>alert(2)</script>${words}`;
  });
  return new Graph([evil], { name: "evil" });
}
