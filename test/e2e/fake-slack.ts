/** Tests talk to the same Slack stand-in the playground serves: one implementation of Slack's side. */
export { SlackStandIn as FakeSlack, type SlackCall } from '../../src/playground/slack-stand-in.js';
