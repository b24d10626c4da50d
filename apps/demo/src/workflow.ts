// The support-ticket workflow. Every node is a plain function; edges are inferred from the names of inputs and
// outputs. The shape (◆ gates, ⏸ the interrupt):
//
//   classify ─▶ ◆ triage ──(spam)──▶ END
//                  └─▶ lookup ─▶ research × documents ─▶ rank ─▶ draft ─▶ prepareReview ─▶ ⏸ approval
//                                (nested graph, mapOver)          ▲                              │
//                                                                 │               recordFeedback ◀┤
//                                                                 └──(rejected)── ◆ afterReview ◀─┘
//                                                                                   ├─(approved)─▶ finalize
//                                                                                   └─(3rd reject)▶ escalate
import { END, Graph, interrupt, node, route } from "@graph/core";
import {
  type Category,
  classifyTicket,
  composeReply,
  documentsFor,
  type KbDocument,
  type Note,
  type Risk,
  readDocument,
  scoreRelevance,
  streamTokens,
} from "./llm.js";

/** Rejected drafts are revised at most this many times; one more rejection escalates the ticket to a person. */
export const MAX_REVISIONS = 2;

/** What the approver is shown (the interrupt's value). */
export interface ReviewRequest {
  readonly ticket: string;
  readonly category: Category;
  readonly risk: Risk;
  /** 1 for the first draft, 2 for the first revision, … */
  readonly revision: number;
  readonly reply: string;
}

/** The approver's answer (the interrupt's response). */
export interface Decision {
  readonly approved: boolean;
  /** Who decided: "you", "--approve", "auto-approve policy", … */
  readonly by: string;
  /** What to change when rejected. */
  readonly feedback?: string;
}

/** How the ticket ended. */
export interface Resolution {
  readonly outcome: "sent" | "escalated";
  readonly reply: string;
  readonly approvedBy: string | null;
  readonly revisions: number;
  readonly sources: readonly string[];
}

// ───────────────────────────────────────────── the research sub-graph (run once per document) ─────────────────

const read = node(
  { output: "passages" },
  async function read({ document, ticket }: { document: KbDocument; ticket: string }, ctx) {
    return readDocument(document, ticket, ctx.signal);
  },
);

const score = node(
  { output: "relevance" },
  function score({ passages, ticket }: { passages: string[]; ticket: string }) {
    return scoreRelevance(passages, ticket);
  },
);

const takeNote = node(
  { output: "note" },
  function takeNote({
    document,
    passages,
    relevance,
  }: {
    document: KbDocument;
    passages: string[];
    relevance: number;
  }): Note {
    return { documentId: document.id, title: document.title, relevance, passages };
  },
);

/** Reads one knowledge-base document for one ticket. */
const research = new Graph([read, score, takeNote], { name: "research" });

// ───────────────────────────────────────────── the support workflow ─────────────────────────────────────────────

const classify = node({ output: ["category", "risk"] }, async function classify({ ticket }: { ticket: string }, ctx) {
  const { category, risk } = await classifyTicket(ticket, ctx.signal);
  return [category, risk];
});

const triage = route({ targets: ["lookup", END] }, function triage({ category }: { category: Category }) {
  return category === "spam" ? END : "lookup";
});

const lookup = node({ output: "documents" }, function lookup({ category }: { category: Category }) {
  return documentsFor(category);
});

// The nested graph as one node, run once per document: `document` (inner) is fed from `documents` (outer) item by
// item, `ticket` is broadcast, and each inner output comes back as an array in document order.
const researchDocuments = research
  .asNode()
  .withInputs({ document: "documents" })
  .withOutputs({ note: "notes" })
  .mapOver("documents");

const rank = node({ output: "findings" }, function rank({ notes }: { notes: Note[] }) {
  return notes
    .filter((n) => n.relevance > 0)
    .sort((a, b) => b.relevance - a.relevance || a.documentId.localeCompare(b.documentId))
    .slice(0, 3);
});

// A streaming node: every yielded token is a StreamingChunk event; the output is the concatenated text.
const draft = node(
  { output: "reply" },
  async function* draft(
    {
      ticket,
      category,
      findings,
      feedback,
    }: { ticket: string; category: Category; findings: Note[]; feedback: string[] },
    ctx,
  ) {
    yield* streamTokens(composeReply(ticket, category, findings, feedback), ctx.signal);
  },
);

const prepareReview = node(
  { output: "review" },
  function prepareReview({
    ticket,
    category,
    risk,
    reply,
    feedback,
  }: {
    ticket: string;
    category: Category;
    risk: Risk;
    reply: string;
    feedback: string[];
  }): ReviewRequest {
    return { ticket, category, risk, revision: feedback.length + 1, reply };
  },
);

/** Low-risk replies go out without a human; high-risk ones pause the workflow until someone answers. */
function autoApprove(review: ReviewRequest): Decision | undefined {
  return review.risk === "low" ? { approved: true, by: "auto-approve policy" } : undefined;
}

const approval = interrupt({ name: "approval", input: "review", response: "decision", handler: autoApprove });

const recordFeedback = node(
  { output: "feedback" },
  function recordFeedback({ feedback, decision }: { feedback: string[]; decision: Decision }) {
    return decision.approved ? feedback : [...feedback, decision.feedback?.trim() || "Please improve the reply."];
  },
);

/** Approved: send it. Rejected: revise, at most MAX_REVISIONS times, then hand the ticket to a person. */
const afterReview = route(
  { targets: ["finalize", "draft", "escalate"] },
  function afterReview({ decision, feedback }: { decision: Decision; feedback: string[] }) {
    if (decision.approved) return "finalize";
    return feedback.length <= MAX_REVISIONS ? "draft" : "escalate";
  },
);

const finalize = node(
  { output: "resolution" },
  function finalize({
    reply,
    decision,
    feedback,
    findings,
  }: {
    reply: string;
    decision: Decision;
    feedback: string[];
    findings: Note[];
  }): Resolution {
    return {
      outcome: "sent",
      reply,
      approvedBy: decision.by,
      revisions: feedback.length,
      sources: findings.map((f) => f.documentId),
    };
  },
);

const escalate = node(
  { output: "resolution" },
  function escalate({ feedback, findings }: { feedback: string[]; findings: Note[] }): Resolution {
    const reply = `Handed to a senior agent after ${feedback.length} rejected drafts. Reviewer notes: ${feedback.map((f) => `"${f}"`).join("; ")}.`;
    return {
      outcome: "escalated",
      reply,
      approvedBy: null,
      revisions: feedback.length,
      sources: findings.map((f) => f.documentId),
    };
  },
);

/**
 * The support-ticket workflow: classify → triage → lookup → research × documents → rank → draft ⇄ approval → finalize
 * (or escalate). Input: `ticket`. Answer a pause with `{ decision: Decision }`.
 */
export const supportGraph = new Graph(
  [
    classify,
    triage,
    lookup,
    researchDocuments,
    rank,
    draft,
    prepareReview,
    approval,
    recordFeedback,
    afterReview,
    finalize,
    escalate,
  ],
  { name: "support" },
).bind({ feedback: [] });

/** The two tickets `npm run demo` handles when no `--ticket` is given. */
export const SAMPLE_TICKETS: readonly { readonly label: string; readonly ticket: string }[] = [
  {
    label: "high risk: pauses for approval",
    ticket:
      "Hi, I was charged twice for my annual plan this month ($240 each time). Can I get a refund for the duplicate charge?",
  },
  {
    label: "low risk: auto-approved",
    ticket: "How do I reset my password? The reset email never arrives.",
  },
];
