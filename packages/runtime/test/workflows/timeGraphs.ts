import { Graph, ifElse, node, sleep, waitFor } from "@graph/core";

/**
 * The Temporal food-delivery sample: place the order; wait at most 1 minute for "picked up", else refund; once
 * picked up, let the food settle for 1 minute; then wait for "delivered". `calls` records each side effect.
 */
export function foodDelivery(calls: string[]) {
  const place = node({ name: "place", output: "orderNumber" }, async ({ orderId }: { orderId: string }) => {
    calls.push(`place:${orderId}`);
    return `N-${orderId}`;
  });
  const pickup = waitFor({
    name: "await-pickup",
    event: "order.pickedUp",
    match: { orderNumber: "orderNumber" },
    response: "pickup",
    timeout: "1m",
    onTimeout: null,
    timedOut: "notPickedUp",
    payload: undefined as unknown as { orderNumber: string; driver: string },
  });
  const decide = ifElse(
    { name: "picked-up?", whenTrue: "refund", whenFalse: "settle" },
    ({ notPickedUp }: { notPickedUp: boolean }) => notPickedUp,
  );
  const refund = node({ name: "refund", output: "refunded" }, async ({ orderNumber }: { orderNumber: string }) => {
    calls.push(`refund:${orderNumber}`);
    return true;
  });
  const settle = sleep({ name: "settle", input: "pickup", duration: "1m", output: "settledAt" });
  const delivered = waitFor({
    name: "await-delivery",
    event: "order.delivered",
    match: { orderNumber: "orderNumber" },
    after: "settledAt",
    response: "delivery",
    payload: undefined as unknown as { orderNumber: string; at: string },
  });
  const complete = node(
    { name: "complete", output: "outcome" },
    async ({ pickup, delivery }: { pickup: { driver: string } | null; delivery: { at: string } }) => {
      calls.push(`complete:${pickup?.driver}@${delivery.at}`);
      return `delivered by ${pickup?.driver} at ${delivery.at}`;
    },
  );
  return new Graph([place, pickup, decide, refund, settle, delivered, complete], { name: "food-delivery" });
}

/**
 * The Inngest AgentKit support flow: draft an answer, tell the customer, wait up to 4 hours for their reply to
 * the ticket (matched on `ticketId`); a reply closes the ticket, silence escalates it to a human.
 */
export function supportFlow(calls: string[]) {
  const draft = node({ name: "draft", output: "answer" }, async ({ question }: { question: string }) => {
    calls.push(`draft:${question}`);
    return `Try turning it off and on: ${question}`;
  });
  const notify = node(
    { name: "notify", output: "notified" },
    async ({ ticketId, answer }: { ticketId: string; answer: string }) => {
      calls.push(`notify:${ticketId}:${answer.length}`);
      return true;
    },
  );
  const reply = waitFor({
    name: "await-reply",
    event: "ticket.replied",
    match: { ticketId: "ticketId" },
    after: "notified",
    response: "reply",
    timeout: "4h",
    onTimeout: null,
    timedOut: "noReply",
    payload: undefined as unknown as { ticketId: string; text: string },
  });
  const decide = ifElse(
    { name: "replied?", whenTrue: "escalate", whenFalse: "close" },
    ({ noReply }: { noReply: boolean }) => noReply,
  );
  const escalate = node({ name: "escalate", output: "escalated" }, async ({ ticketId }: { ticketId: string }) => {
    calls.push(`escalate:${ticketId}`);
    return `escalated ${ticketId}`;
  });
  const close = node(
    { name: "close", output: "closed" },
    async ({ ticketId, reply }: { ticketId: string; reply: { text: string } | null }) => {
      calls.push(`close:${ticketId}:${reply?.text}`);
      return `closed ${ticketId}: ${reply?.text}`;
    },
  );
  return new Graph([draft, notify, reply, decide, escalate, close], { name: "support" });
}
