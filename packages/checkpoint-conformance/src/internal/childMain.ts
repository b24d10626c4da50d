// What every child process of the kit's multi-process tests shares: talking to the test process and ending.

/** Sends one message to the test process; resolves once it is handed over (at once when there is no IPC channel). */
export function sendToParent(message: unknown): Promise<void> {
  return new Promise((resolve) => (process.send === undefined ? resolve() : process.send(message, () => resolve())));
}

/** Runs a child's `main`: exit 0 when it returns; when it throws, report `{ type: "error" }` first and exit 1. */
export function runChildMain(main: () => Promise<void>): void {
  main().then(
    () => {
      process.disconnect?.();
      process.exit(0);
    },
    async (error: unknown) => {
      await sendToParent({
        type: "error",
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      process.disconnect?.();
      process.exit(1);
    },
  );
}
