// Registers every statement source adapter (domain/statements/statementSources.ts). A new source adds one import here.
import './cardproc/cardproc.ts';
import './usbank/usbank.ts';
import './fxwallet/fxwallet.ts';
import './gateway/gateway.ts';
import './market/upwork.ts';
