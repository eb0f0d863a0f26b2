// What the browser tests share: their two arguments, a check that prints or fails, and a
// headless Debian Chromium whose page records every error it logs and every request it
// makes beyond what the test allows.
import { chromium } from "playwright-core";

/// The script's two arguments, or its usage and exit 2.
export function args(usage) {
  const [target, shots] = process.argv.slice(2);
  if (!target || !shots) {
    console.error("usage: " + usage);
    process.exit(2);
  }
  return [target, shots];
}

export function check(ok, what) {
  if (!ok) {
    throw new Error("check failed: " + what);
  }
  console.log("ok - " + what);
}

/// A browser and a page of 1400 × 1000. `allowed(url)` says which requests may be made;
/// `expected(text)` which logged errors are the test's own doing.
export async function open({ allowed, expected = () => false, permissions = [] }) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, permissions });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error" && !expected(m.text())) errors.push("console: " + m.text());
  });
  page.on("pageerror", (e) => errors.push("page error: " + e));
  page.on("request", (r) => {
    if (!allowed(r.url())) errors.push("request: " + r.url());
  });
  return { browser, page, errors };
}

/// Runs `steps` on the page, closes the browser, and checks nothing unexpected was logged
/// or requested (`what` says what that means here).
export async function run({ browser, page, errors }, steps, what) {
  try {
    await steps(page);
  } finally {
    await browser.close();
  }
  check(errors.length === 0, what + (errors.length ? ":\n" + errors.join("\n") : ""));
}
