// What a caught value says, for a message or a log line: an Error's message, anything else as text
// (a rejected promise or a throw may carry any value).
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
