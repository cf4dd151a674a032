#!/usr/bin/env node
// A skeleton Canasta engine adapter in JavaScript: it speaks the JSON-lines protocol of the
// conformance suite (docs/protocol.md) and plays no Canasta. Replace the bodies of `load`,
// `apply`, `observe` and `score` with calls into your engine.
//
//   canasta run --engine-cmd "node examples/node-engine/engine.js"
//
// One JSON object per line on stdin (requests) and stdout (replies); logs go to stderr.
'use strict';

const readline = require('node:readline');

const PROTOCOL_VERSION = 1;

// What the engine says about itself in the handshake. The harness sends only the scenarios whose
// variant, options and required features are declared here; the others are reported as
// unsupported, never as failures.
const ENGINE = {
  name: 'node-skeleton',
  version: '0.1.0',
  variants: ['classic'],   // names from spec/variants/
  options: [],             // parameter names from spec/parameters.yaml the engine honours ("*": all)
  features: [],            // optional: "legal_actions", "deal" (operations implemented), "cites_rules"
                           // (rejections cite this spec's rule IDs, and the suite then checks them)
  spec_version: null,      // the version of the rules spec the engine follows
};

let position = null; // the hand in play, in the exchange format (spec/schema/position.schema.json)

const unsupported = (message) => ({ unsupported: true, message });

const handlers = {
  handshake(request) {
    // Answer the version this engine speaks; the harness stops if it is not its own.
    return { protocol: PROTOCOL_VERSION, engine: ENGINE };
  },

  load(request) {
    // A new scenario: set up this position and forget the previous hand. Modern American
    // positions also hold `talons` (bonus talons not yet taken, next first), and a meld of wild
    // cards only is the side's wild-card meld. Three-player positions may name `lone_hand`, the
    // seat playing alone (the two others pool their melds under the lower seat; red threes and
    // scores stay per seat), and table-penalty variants (PAIRS) list the `penalties` charged.
    position = request.position;
    return { ok: true };
  },

  observe() {
    if (position === null) throw new Error('no position loaded');
    return { position };
  },

  apply(request) {
    // Judge request.action for the player to move and answer one of:
    //   { outcome: { status: 'accepted' } }
    //   { outcome: { status: 'rejected', message: '...' } }
    //   { outcome: { status: 'rejected', rule: 'pile.frozen.take-with-natural-pair', message: '...' } }
    //     (`rule` is optional: it is checked only if ENGINE.features lists "cites_rules")
    //   { outcome: { status: 'malformed', message: 'the hand does not hold JS' } }
    // A rejected action must leave the position exactly as it was. request.action.type is one of
    // the types of spec/schema/action.schema.json (draw, take, meld, discard, ask, answer, decline,
    // next_hand, end_turn, ...); where the option meld.sequences is on, a meld group may be
    // { sequence: true, cards: [...] }: a sequence of one suit started or extended.
    return unsupported(`${request.action.type}: this skeleton plays no Canasta yet`);
  },

  score() {
    // Once the hand is over: { score: { sides: [{canastas, red_threes, going_out, melded,
    // in_hand, special_hand, penalties, total, cumulative}, ...], game_over: false, winner: null } }
    // (special_hand is a Modern American line, penalties holds unfinished special melds and table
    // penalties; a line left out counts 0). In the three-player game there is one entry per seat.
    return unsupported('this skeleton keeps no score');
  },

  // "deal" and "legal_actions" are optional: declare them in ENGINE.features and add handlers.
};

function answer(request) {
  const handler = Object.hasOwn(handlers, request.op) ? handlers[request.op] : null;
  if (handler === null) return { seq: request.seq, ...unsupported(`unknown operation ${request.op}`) };
  try {
    return { seq: request.seq, ...handler(request) };
  } catch (error) {
    // An engine-side error: the harness reports the scenario as an error with this message.
    return { seq: request.seq, error: { message: String(error.message), traceback: String(error.stack) } };
  }
}

const reply = (message) => process.stdout.write(JSON.stringify(message) + '\n'); // synchronous on POSIX pipes

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (line) => {
  if (line.trim() === '') return;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    reply({ seq: null, error: { message: `the request is not JSON: ${error.message}` } });
    return;
  }
  if (request.op === 'stop') {
    input.close(); // stop has no reply: exit
    return;
  }
  reply(answer(request));
});
input.on('close', () => process.exit(0));
