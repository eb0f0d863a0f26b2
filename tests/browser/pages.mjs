// Drives Debian's Chromium (headless) over a matrix page opened from disk, as a learner
// would: read the verdict it leads with, click a LOST cell, step through the run, switch to
// Spanish, compare two protocols, copy the replay command. Fails (exit 1) on anything unexpected, on any error the page
// logs, and on any request that leaves the file. Run by tests/it/browser.rs (feature
// `browser`), which `.ci/run` turns on after installing chromium and this folder's
// playwright-core.
//
//   node pages.mjs PAGE.html SCREENSHOT_DIR
import { pathToFileURL } from "node:url";
import path from "node:path";
import { args, check, open, run } from "./common.mjs";

const [pagePath, shots] = args("node pages.mjs PAGE.html SCREENSHOT_DIR");
const browser = await open({
  allowed: (url) => /^(file|data|blob):/.test(url),
  permissions: ["clipboard-read", "clipboard-write"],
});
await run(browser, async (page) => {
  await page.goto(pathToFileURL(path.resolve(pagePath)).href);
  await page.waitForSelector(".matrix td.cell button");
  await page.screenshot({ path: path.join(shots, "matrix.png"), fullPage: true });

  // Each screen leads with the verdict line its command prints first, in its status's tone.
  const lead = async (scope) => ({
    status: await page.getAttribute(scope + " .verdict-line", "data-status"),
    word: await page.textContent(scope + " .verdict-line .status"),
    text: await page.textContent(scope + " .verdict-line"),
  });
  const matrix = await lead(".matrix");
  check(matrix.status === "fail" && matrix.word === "FAIL", `the matrix leads with its verdict (${matrix.text})`);
  check(matrix.text.includes("protocols"), "the matrix's verdict is counted over its protocols");
  const column = async (protocol) => {
    const index = await page.evaluate((name) => {
      return [...document.querySelectorAll(".matrix thead th.protocol")].findIndex((th) => th.firstChild.textContent === name);
    }, protocol);
    return page.getAttribute(`.matrix tfoot tr.verdicts td:nth-of-type(${index + 1})`, "data-status");
  };
  check((await column("ack-first")) === "fail" && (await column("inbox")) === "pass", "each protocol's verdict: ack-first fails, inbox passes");

  const lost = 'button[data-protocol="ack-first"][data-at="after:ack"]';
  check((await page.textContent(lost)) === "LOST", "ack-first at after:ack says LOST in words");
  await page.click(lost);
  await page.waitForSelector(".pane ol.steps li[data-step='0']");
  const steps = await page.locator(".pane ol.steps li[data-step]").count();
  check(steps > 10, `the run's story is told step by step (${steps} steps)`);
  const rows = await page.locator(".pane .diagram svg [data-first]").count();
  check(rows > 10, `the run's diagram is drawn (${rows} rows tied to steps)`);
  check((await page.textContent(".pane h2")).includes("after:ack e"), "the run is the cell's crash point");
  const run = await lead(".pane");
  check(run.status === "fail" && run.word === "FAIL" && run.text.includes("lost"), `the run leads with its verdict (${run.text})`);

  const band = async () => Number(await page.getAttribute(".pane .diagram .hl-band", "y"));
  await page.click(".pane .stepper .next");
  const first = await band();
  await page.click(".pane .stepper .next");
  await page.click(".pane .stepper .next");
  check((await page.getAttribute(".pane ol.steps li.current", "data-step")) === "2", "three steps forward is step 3");
  const third = await band();
  check(third > first, `the diagram's highlight moved down (${first} → ${third})`);
  await page.keyboard.press("ArrowRight");
  check((await page.getAttribute(".pane ol.steps li.current", "data-step")) === "3", "→ moves one step more");

  const english = await page.textContent(".pane ol.steps li[data-step='0'] .text");
  await page.click('header button[data-lang="es"]');
  const spanish = await page.textContent(".pane ol.steps li[data-step='0'] .text");
  check(spanish !== english, `the story speaks Spanish ("${spanish.slice(0, 40)}…")`);
  check((await lead(".pane")).word === "FALLA", "the verdict speaks Spanish");
  check((await page.getAttribute("html", "lang")) === "es", "the document says it is Spanish");
  check((await page.locator(".pane .diagram svg").textContent()).includes("Productor"), "the diagram's labels are Spanish");
  check((await page.getAttribute(".pane ol.steps li.current", "data-step")) === "3", "the step is kept across languages");
  await page.screenshot({ path: path.join(shots, "run.png") });

  await page.selectOption("#compare", { label: "inbox" });
  await page.waitForSelector('.pane[data-slot="1"]');
  const other = await page.textContent('.pane[data-slot="1"] h2');
  check(other.startsWith("inbox") && other.includes("after:ack"), "compare opens inbox at the same crash point");
  const inbox = await lead('.pane[data-slot="1"]');
  check(inbox.status === "pass" && inbox.word === "PASA" && inbox.text.includes("exactly-once"), "inbox holds there");

  await page.click(".pane .copy");
  await page.waitForFunction(() => document.querySelector(".pane .copy").textContent === "copiado");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const command = await page.textContent(".pane .command");
  check(copied === command && command.startsWith("delivery-sim run --protocol ack-first"), "the copy button copies the replay command");
  await page.click(".back");
  await page.waitForSelector(".matrix");
  check(true, "back to the matrix");
}, "no errors logged and no request left the file");
