// The Mastra side of the context-relevance differential: run where @mastra/evals 1.10
// and @mastra/core are installed (see mastra_diff.py). Reads {url, cases} as JSON on
// stdin, runs Mastra's own createContextRelevanceScorerLLM on each case (its judge: the
// model router pointed at the fake server), prints {version, results: [{score,
// analyze}]} as JSON. Imports only Mastra.
import { createRequire } from "node:module";
import { createContextRelevanceScorerLLM } from "@mastra/evals/scorers/prebuilt";

const require = createRequire(import.meta.url);
const version = require("@mastra/evals/package.json").version;
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const spec = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const results = [];
for (const c of spec.cases) {
  const options = { context: c.context, scale: c.scale };
  if (c.penalties) options.penalties = c.penalties;
  const scorer = createContextRelevanceScorerLLM({
    model: { id: "openai/fake-judge", url: spec.url, apiKey: "sk-fake" },
    options,
  });
  const input = {
    inputMessages: [{ id: "u", role: "user", content: c.question }],
    rememberedMessages: [], systemMessages: [], taggedSystemMessages: {},
  };
  const output = c.response ? [{ id: "a", role: "assistant", content: c.response }] : [];
  const result = await scorer.run({ input, output });
  results.push({ score: result.score, analyze: result.analyzeStepResult });
}
process.stdout.write(JSON.stringify({ version, results }));
