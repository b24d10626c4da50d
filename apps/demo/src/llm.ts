// Deterministic stand-ins for the language-model calls of a support desk. No network: keyword rules and a small
// built-in knowledge base, with short delays so the terminal shows something happening (and so a test can kill the
// process mid-run). The same input always gives the same output, which is what lets a resumed workflow reproduce
// the answer of an uninterrupted one.

/** A ticket's category, as the classifier sees it. */
export type Category = "billing" | "technical" | "account" | "spam";

/** How careful the desk must be with the reply: high-risk replies need a human's approval. */
export type Risk = "low" | "high";

/** One knowledge-base article. */
export interface KbDocument {
  readonly id: string;
  readonly title: string;
  readonly category: Exclude<Category, "spam"> | "general";
  readonly body: string;
}

/** What the research sub-graph learns from one document. */
export interface Note {
  readonly documentId: string;
  readonly title: string;
  readonly relevance: number;
  readonly passages: readonly string[];
}

// ───────────────────────────────────────────── timing ─────────────────────────────────────────────

let unitMs = 15;

/**
 * Sets the base delay of every stand-in call (a token costs one unit, reading a document about eight). The delay is
 * not part of any node's definition, so changing it never changes the graph's version.
 */
export function setModelDelay(ms: number): void {
  unitMs = Math.max(0, ms);
}

/** The current base delay. */
export function modelDelay(): number {
  return unitMs;
}

function sleep(units: number, signal?: AbortSignal): Promise<void> {
  const ms = Math.round(units * unitMs);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error("aborted"));
    }
    if (signal?.aborted) abort();
    else signal?.addEventListener("abort", abort, { once: true });
  });
}

// ───────────────────────────────────────────── text helpers ─────────────────────────────────────────────

const STOP_WORDS = new Set(
  "the and for you your with this that have has was were are our can not but from they them there their what when which into will would about just been also does how why any all get got its it's i'm".split(
    " ",
  ),
);

/** Lower-case content words, crudely stemmed so "charged" and "charges" meet at "charg". */
function keywords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? [];
  const out = new Set<string>();
  for (const w of words) {
    if (w.length < 3 || STOP_WORDS.has(w)) continue;
    out.add(w.replace(/(ing|ed|es|s)$/, "").slice(0, 8));
  }
  return out;
}

function sentences(text: string): string[] {
  return text.match(/[^.!?]+[.!?]+/g)?.map((s) => s.trim()) ?? [text];
}

// ───────────────────────────────────────────── classify ─────────────────────────────────────────────

const CATEGORY_WORDS: Record<Exclude<Category, "spam">, readonly string[]> = {
  billing: [
    "charge",
    "charged",
    "refund",
    "invoice",
    "payment",
    "card",
    "bill",
    "billed",
    "subscription",
    "plan",
    "price",
    "receipt",
    "paid",
  ],
  technical: [
    "error",
    "crash",
    "sync",
    "bug",
    "api",
    "export",
    "slow",
    "broken",
    "working",
    "upload",
    "timeout",
    "500",
    "app",
  ],
  account: ["password", "login", "log", "email", "2fa", "account", "delete", "username", "locked", "reset", "sign"],
};
const SPAM_PHRASES = ["winner", "crypto", "click here", "seo services", "guaranteed traffic", "act now", "free money"];
const HIGH_RISK = [
  "refund",
  "twice",
  "chargeback",
  "delete",
  "legal",
  "lawyer",
  "security",
  "hacked",
  "breach",
  "cancel",
  "fraud",
  "gdpr",
];

/** Classifies a ticket: its category (spam included) and the risk of answering it without a human. */
export async function classifyTicket(
  ticket: string,
  signal?: AbortSignal,
): Promise<{ category: Category; risk: Risk }> {
  await sleep(6, signal);
  const text = ticket.toLowerCase();
  if (SPAM_PHRASES.some((p) => text.includes(p))) return { category: "spam", risk: "low" };
  const words = text.match(/[a-z0-9]+/g) ?? [];
  let best: Exclude<Category, "spam"> = "technical";
  let bestScore = 0;
  for (const [category, list] of Object.entries(CATEGORY_WORDS) as [Exclude<Category, "spam">, readonly string[]][]) {
    const score = words.filter((w) => list.includes(w)).length;
    if (score > bestScore) {
      best = category;
      bestScore = score;
    }
  }
  const amounts = [...text.matchAll(/\$\s?(\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));
  const risky = HIGH_RISK.some((w) => text.includes(w)) || amounts.some((a) => a >= 100);
  return { category: best, risk: risky ? "high" : "low" };
}

// ───────────────────────────────────────────── knowledge base ─────────────────────────────────────────────

const KNOWLEDGE_BASE: readonly KbDocument[] = [
  {
    id: "kb-101",
    title: "Refunds and duplicate charges",
    category: "billing",
    body:
      "Duplicate charges are detected by our billing system and refunded automatically within 5 business days. " +
      "Refunds always go back to the original payment method. " +
      "Annual plans can be refunded pro rata within 30 days of the charge. " +
      "Your bank may show a pending charge for a few days before it disappears.",
  },
  {
    id: "kb-102",
    title: "Reading your invoice",
    category: "billing",
    body:
      "Every invoice lists the plan, the billing period and the taxes applied. " +
      "Invoices are emailed to the account owner and are available under Settings, Billing. " +
      "A charge labelled AUTH is a temporary card check and is never collected.",
  },
  {
    id: "kb-103",
    title: "Failed payments and card updates",
    category: "billing",
    body:
      "When a payment fails we retry the card three times over a week. " +
      "You can update the card under Settings, Billing, Payment method. " +
      "Your plan stays active while a payment is being retried.",
  },
  {
    id: "kb-104",
    title: "Changing or cancelling a plan",
    category: "billing",
    body:
      "You can switch plans at any time and the difference is prorated on the next invoice. " +
      "Cancelling keeps the plan active until the end of the paid period. " +
      "Annual plans cancelled within 30 days are refunded pro rata.",
  },
  {
    id: "kb-201",
    title: "Sync troubleshooting",
    category: "technical",
    body:
      "If sync stops, sign out and back in to refresh the session token. " +
      "Sync pauses while the device is offline and resumes automatically. " +
      "Files larger than 2 GB are skipped by sync and listed under Activity.",
  },
  {
    id: "kb-202",
    title: "Exporting your data",
    category: "technical",
    body:
      "Exports are prepared in the background and emailed as a download link. " +
      "Large exports can take up to an hour. " +
      "The export link stays valid for 7 days.",
  },
  {
    id: "kb-203",
    title: "Errors and the status page",
    category: "technical",
    body:
      "An error 500 usually means a temporary incident; check the status page before retrying. " +
      "The app retries failed uploads automatically. " +
      "If an error persists, send us the request id shown with the error.",
  },
  {
    id: "kb-204",
    title: "API rate limits",
    category: "technical",
    body:
      "The API allows 600 requests per minute per token. " +
      "A response with status 429 means the limit was reached; wait for the time given in the Retry-After header. " +
      "Enterprise plans can ask for higher limits.",
  },
  {
    id: "kb-301",
    title: "Resetting your password",
    category: "account",
    body:
      "Use Forgot password on the sign-in page to receive a reset email. " +
      "The reset email can take a few minutes; check the spam folder if it does not arrive. " +
      "Reset links expire after one hour, so request a new one if yours is older.",
  },
  {
    id: "kb-302",
    title: "Two-factor authentication",
    category: "account",
    body:
      "Two-factor authentication adds a code from your phone at sign-in. " +
      "If you lose your phone, use one of the recovery codes shown when you turned it on. " +
      "Support can disable two-factor authentication only after verifying your identity.",
  },
  {
    id: "kb-303",
    title: "Deleting an account",
    category: "account",
    body:
      "Deleting an account removes all data after a 14 day grace period. " +
      "Only the account owner can request deletion, from Settings, Account. " +
      "During the grace period the deletion can be cancelled by signing in.",
  },
  {
    id: "kb-304",
    title: "Changing your email address",
    category: "account",
    body:
      "You can change the sign-in email under Settings, Account. " +
      "We send a confirmation link to the new address, and the change applies once it is confirmed. " +
      "If the email never arrives, check the spam folder or add our domain to your contacts.",
  },
  {
    id: "kb-001",
    title: "How support replies",
    category: "general",
    body:
      "Support answers every ticket within one business day. " +
      "Replies about money or account deletion are reviewed by a second person before they are sent. " +
      "You can reply to any support email to continue the conversation.",
  },
];

/** The knowledge-base articles worth reading for a category (its own articles plus the general ones). */
export function documentsFor(category: Category): KbDocument[] {
  return KNOWLEDGE_BASE.filter((d) => d.category === category || d.category === "general");
}

// ───────────────────────────────────────────── research ─────────────────────────────────────────────

/** Reads one document "carefully" (slowly) and keeps the sentences that share words with the ticket. */
export async function readDocument(document: KbDocument, ticket: string, signal?: AbortSignal): Promise<string[]> {
  // Longer documents take longer; the spread makes the progress bar move unevenly, like real calls do.
  await sleep(6 + (document.body.length % 7), signal);
  const wanted = keywords(ticket);
  return sentences(document.body).filter((s) => [...keywords(s)].some((w) => wanted.has(w)));
}

/** Scores how much a document's passages cover the ticket, from 0 to 1 (two decimals). */
export function scoreRelevance(passages: readonly string[], ticket: string): number {
  const wanted = keywords(ticket);
  if (wanted.size === 0 || passages.length === 0) return 0;
  const found = new Set<string>();
  for (const p of passages) for (const w of keywords(p)) if (wanted.has(w)) found.add(w);
  return (
    Math.round(
      Math.min(1, (found.size / Math.min(wanted.size, 6)) * (0.6 + 0.1 * Math.min(passages.length, 4))) * 100,
    ) / 100
  );
}

// ───────────────────────────────────────────── drafting ─────────────────────────────────────────────

const OPENERS: Record<Category, string> = {
  billing: "Thanks for reaching out about your bill, and sorry for the trouble.",
  technical: "Thanks for the report, and sorry that this got in your way.",
  account: "Thanks for getting in touch about your account.",
  spam: "Thanks for your message.",
};

/**
 * Writes the reply text. Reviewer feedback shapes later revisions: "apolog…" adds an apology, "short…"/"concise"
 * keeps only the strongest finding, "detail…"/"more" adds every finding, "time…"/"when" adds the timeline; any
 * other note is acknowledged in a closing sentence. (A real model would also read the ticket; the rules don't need to.)
 */
export function composeReply(
  _ticket: string,
  category: Category,
  findings: readonly Note[],
  feedback: readonly string[],
): string {
  const notes = feedback.join(" ").toLowerCase();
  const wantsShort = /short|concise|brief/.test(notes);
  const wantsDetail = /detail|more|explain/.test(notes);
  const wantsApology = /apolog|sorry/.test(notes);
  const wantsTimeline = /time|when|how long/.test(notes);
  const lines: string[] = [];
  lines.push(wantsApology ? `We sincerely apologise for the inconvenience. ${OPENERS[category]}` : OPENERS[category]);
  const used = wantsShort ? findings.slice(0, 1) : wantsDetail ? findings : findings.slice(0, 2);
  const passages = used.flatMap((f) => f.passages.slice(0, wantsDetail ? 3 : 2));
  if (passages.length === 0) lines.push("We are looking into this and will follow up shortly.");
  else lines.push(passages.join(" "));
  if (wantsTimeline) lines.push("You will hear from us again within one business day.");
  const other = feedback.filter(
    (f) => !/short|concise|brief|detail|more|explain|apolog|sorry|time|when|how long/i.test(f),
  );
  if (other.length > 0)
    lines.push(`We have also taken care of this: ${other[other.length - 1]!.replace(/[.!\s]+$/, "")}.`);
  const sources = used.map((f) => f.documentId).join(", ");
  lines.push(`Best regards, the support team${sources ? ` (sources: ${sources})` : ""}`);
  return lines.join("\n\n");
}

/** Streams a reply token by token, like a model would. */
export async function* streamTokens(text: string, signal?: AbortSignal): AsyncGenerator<string, void, undefined> {
  for (const token of text.match(/\S+\s*/g) ?? []) {
    await sleep(1, signal);
    yield token;
  }
}
