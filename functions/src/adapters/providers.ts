// Registers every provider adapter with its port (ports/mailbox.ts, chat.ts, marketplace.ts, taxAuthority.ts, and the
// statement sources). Importing this is what puts the providers behind the ports; a new provider adds one import here.
import './statementSources.ts';
import './mailbox/gmail.ts';
import './chat/slackClient.ts';
import './ita/itaClient.ts';
