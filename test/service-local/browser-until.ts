// Waits in the browser tests until an expression holds on the page.
//
// The dashboard's Content-Security-Policy allows no eval, and Playwright's
// waitForFunction polls its predicate with the page's own eval (a string or a
// function alike), which the page then refuses. This polls from the test
// instead, each check one evaluation made by the test driver, so the page's
// policy stays exactly what a visitor's browser enforces.

export interface Evaluates {
  evaluate(expression: string): Promise<unknown>;
}

export async function until(page: Evaluates, expression: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await page.evaluate(expression)) return;
      last = undefined;
    } catch (err) {
      last = err; // a navigation in between: try again
    }
    if (Date.now() > end) {
      const why = last instanceof Error ? ` (last error: ${last.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${expression}${why}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
