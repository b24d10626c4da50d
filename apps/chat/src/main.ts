// `npm run chat`: the support-agent chat at http://127.0.0.1:5180 (or --port N), workflows in apps/chat/data/chat.db
// (or --db FILE). Offline by default; set AI_GATEWAY_API_KEY (and CHAT_MODEL) to use a real model.
import { parseArgs } from "node:util";
import { startChatServer } from "./server.js";

const { values } = parseArgs({
  options: { port: { type: "string", default: "5180" }, db: { type: "string" }, delay: { type: "string" } },
});
const server = await startChatServer({
  port: Number(values.port),
  ...(values.db === undefined ? {} : { db: values.db }),
  ...(values.delay === undefined ? {} : { tokenDelayMs: Number(values.delay) }),
});
console.log(`Support chat on ${server.url}  (model: ${server.modelName})`);
console.log('Try: "Where is my order A-123?" — Ctrl-C to quit.');
const quit = async () => {
  await server.close();
  process.exit(0);
};
process.once("SIGINT", quit);
process.once("SIGTERM", quit);
