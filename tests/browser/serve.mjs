// Drives Debian's Chromium (headless) over `delivery-sim serve`'s playground: run the example
// in the editor and see its verdict, explore it, see the exploration's verdict and open a
// failing run (its story asked of the server), then send a malformed
// scenario, see the server's error, and see the server still answering a good one. Fails
// (exit 1) on anything unexpected and on any error the page logs but the one 400 answer
// the malformed scenario is meant to get. Run by tests/it/browser.rs (feature `browser`).
//
//   node serve.mjs http://127.0.0.1:PORT/ SCREENSHOT_DIR
import path from "node:path";
import { args, check, open, run } from "./common.mjs";

const [url, shots] = args("node serve.mjs URL SCREENSHOT_DIR");
const browser = await open({
  allowed: (request) => request.startsWith(url),
  // The malformed scenario's 400 is the answer this test asks for.
  expected: (text) => text.includes("status of 400"),
});
await run(browser, async (page) => {
  await page.goto(url);
  await page.waitForSelector("#scenario");
  const example = await page.inputValue("#scenario");
  check(example.includes('"protocol"'), "the editor opens with an example");

  await page.selectOption("#example", "ack-first-crash-after-ack");
  check((await page.inputValue("#scenario")).includes("ack-first"), "an example is one click away");
  const lead = async (scope) => ({
    status: await page.getAttribute(scope + " .verdict-line", "data-status"),
    word: await page.textContent(scope + " .verdict-line .status"),
    text: await page.textContent(scope + " .verdict-line"),
  });
  await page.click("#run");
  await page.waitForSelector(".pane .verdict-line");
  const run = await lead(".pane");
  check(run.status === "fail" && run.word === "FAIL" && run.text.includes("at-most-once"), `running it leads with its verdict (${run.text})`);
  await page.click(".pane .stepper .next");
  check((await page.getAttribute(".pane ol.steps li.current", "data-step")) === "0", "its story steps");
  await page.screenshot({ path: path.join(shots, "serve.png") });

  await page.click("#explore");
  await page.waitForSelector(".listing tr.shown");
  const runs = await page.locator(".listing tr[data-run]").count();
  check(runs > 5, `exploring it lists its runs (${runs})`);
  const explored = await lead(".listing");
  check(explored.status === "fail" && explored.text.includes("runs to depth 1"), `the exploration leads with its verdict (${explored.text})`);
  const failing = page.locator(".listing tr.shown:has(td.status.fail)").first();
  const crash = await failing.locator("td.point").textContent();
  await failing.click();
  await page.waitForSelector(".pane ol.steps li");
  check((await page.textContent(".pane h2")).includes(crash), `a failing run of the exploration opens, told on demand (${crash})`);
  check((await lead(".pane")).status === "fail", "it leads with its own verdict: FAIL");
  await page.click(".back");
  await page.waitForSelector(".listing");

  await page.fill("#scenario", '{"name": "broken", "protocol": "inbox", "workload": {"events": ');
  await page.click("#run");
  await page.waitForSelector("#error");
  const error = await page.textContent("#error");
  check(error.includes("scenario.json") && error.includes("line 1"), `a malformed scenario gets the server's error (${error.slice(0, 60)}…)`);

  await page.selectOption("#example", "inbox-crash-between-commit-and-ack");
  await page.click("#run");
  await page.waitForSelector(".pane .verdict-line");
  const inbox = await lead(".pane");
  check(inbox.status === "pass" && inbox.text.includes("exactly-once"), "the server still answers: inbox holds");
  await page.click('header button[data-lang="es"]');
  check((await page.textContent("#run")) === "Correr", "the playground speaks Spanish");
  check((await lead(".pane")).word === "PASA", "its verdict too");
}, "no other errors logged and no request left the server");
