import { activityTemplate, type ActivityParams, type ActivityTemplates } from '../ui/activityText.ts';

const role = (p: ActivityParams) => (p.role === 'admin' ? 'an admin' : 'a user');
const channel: Record<string, string> = { wa: 'by WhatsApp', em: 'by email', email: 'by email', link: 'as a link only' };
const reading: Record<string, string> = { read: 'read', unread: 'waiting to be read', failed: 'reading failed' };
const payRule: Record<string, string> = { card: 'paid by card', not_card: 'not by card' };
const status: Record<string, string> = { sent: 'sent', awaiting_invoice: 'awaiting invoice', ready: 'ready to pay', paid: 'paid', canceled: 'canceled', received: 'received' };
const apps: Record<string, string> = { incoming: 'Incoming payments', invoices: 'Invoices', payments: 'Payments', software: 'Software', statements: 'Statements', employees: 'Employees', documents: 'Forms', accountant: 'Accountant' };
const n = (k: string, one: string, many: string) => (p: ActivityParams) => (p[k] === 1 ? one : many);
const sync = (what: string) => `Requested ${what} for {month}`;

export const activityEn: ActivityTemplates = {
  // payments
  createPayment: (p) => `Payment request to {supplier}${p.amountAgorot === null ? ' (open amount)' : ' for {amount}'} ${channel[String(p.channel)] ?? ''}`.trim(),
  markPaid: (p) => `The payment to {supplier} was marked paid ({amount})${p.proof ? ' with a proof' : ''}`,
  revertPaid: (p) => `The payment to {supplier} went back from paid to "${status[String(p.status)] ?? ''}"`,
  cancelPayment: 'The payment to {supplier} was canceled',
  resendPayment: (p) => `The payment link was sent again to {supplier} ${channel[String(p.channel)] ?? ''}`.trim(),
  updatePaymentSettings: 'The payment settings for {supplier} were updated',
  // payment runs
  payRunCreate: (p) => `A payment run of {count} payment(s) for {payDate} was created${p.amountAgorot === null || p.amountAgorot === undefined ? '' : ' ({amount})'}`,
  payRunMarkPaid: (p) => `{paid} payment(s) of the run for {payDate} were marked paid${p.skipped ? '; {skipped} already paid' : ''}${p.refused ? '; {refused} not paid' : ''}`,
  payRunCancel: 'The payment run for {payDate} was canceled; {released} payment(s) released',
  paymentApprove: (p) => `The payment to {supplier} ({amount}) was approved${p.state === 'approved' ? '' : '; another approval is needed'}`,
  paymentReject: 'The payment to {supplier} ({amount}) was rejected: {reason}',
  recurringCreate: 'A recurring payment to {supplier} was set up ({cadence})',
  recurringUpdate: (p) => (p.paused === true ? 'The recurring payment to {supplier} was paused' : p.paused === false ? 'The recurring payment to {supplier} was resumed' : 'The recurring payment to {supplier} was updated'),
  recurringDelete: 'The recurring payment to {supplier} was deleted; the payments it made stay',
  approvalPolicySet: (p) => (p.amountAgorot === null ? 'Payment approvals were turned off' : p.amountAgorot === 0 ? 'Every payment now needs {approvals} admin approval(s)' : 'Payments of {amount} and above now need {approvals} admin approval(s)'),
  // suppliers
  createSupplier: (p) => (p.type === 'software' ? 'Software added: {name}' : 'Supplier added: {name}'),
  saveSupplierContact: "The supplier card of {supplier} was updated",
  supplierMerge: (p) => (p.already ? 'The supplier was already merged into {supplier}; nothing changed' : 'A supplier was merged into {supplier}: {payments} payment(s) and {invoices} invoice(s) moved'),
  supplierSuggestionsCreate: '{count} supplier(s) created from suggestions; {assigned} invoice(s) assigned',
  supplierSuggestionsDismiss: n('count', 'One supplier suggestion dismissed', '{count} supplier suggestions dismissed'),
  supplierSuggestionToSoftware: 'The suggestion {name} moved to software with {count} invoice(s)',
  // invoices
  uploadInvoiceDoc: (p) => (p.skipped ? 'The file {fileName} was skipped: a duplicate of an existing invoice' : `The invoice {fileName} was uploaded (${reading[String(p.status)] ?? ''}${p.duplicate ? ', possibly a duplicate' : ''})`),
  analyzeInvoice: (p) => `AI reading of the invoice {fileName}: ${reading[String(p.status)] ?? ''}`,
  updateInvoiceDoc: 'The invoice {fileName} was edited',
  deleteInvoiceDoc: (p) => `The invoice {fileName} was deleted${p.fileRemoved ? ' with its file' : ' (the file stays on its payment)'}`,
  createUploadUrl: 'An upload link was made for {fileName}',
  invoiceBulkPayRule: (p) => `${n('count', 'One invoice marked', '{count} invoices marked')(p)} "${payRule[String(p.rule)] ?? ''}"`,
  invoiceSetCategory: (p) => (p.category ? '{count} invoice(s) put in the category {category}' : 'The category was removed from {count} invoice(s)'),
  vendorPayRuleSet: (p) => (p.rule ? `Pay rule "${payRule[String(p.rule)] ?? ''}" saved for the issuer; {count} invoice(s) updated` : "The issuer's pay rule was forgotten; {count} invoice(s) updated"),
  vendorCategoryRuleSet: (p) => (p.category ? 'Category rule {category} saved for the issuer; {count} invoice(s) updated' : "The issuer's category rule was forgotten; {count} invoice(s) updated"),
  categorySync: 'Category sorting: {classified} classified, {unclassified} left to you, {remaining} waiting',
  mailboxMailAsInvoice: (p) => (p.outcome === 'imported' ? "A mail's body was saved as an invoice" : p.outcome === 'duplicate' ? "A mail's body was a duplicate of an existing invoice" : "Saving a mail's body as an invoice failed"),
  invoicesMove: n('count', 'One invoice was moved to the folder {folder}', '{count} invoices were moved to the folder {folder}'),
  invoicesAssignSupplier: n('count', 'One invoice was assigned to the supplier {supplier}', '{count} invoices were assigned to the supplier {supplier}'),
  mailboxMailsBackfill: '{count} older scanned mail(s) completed; {remaining} left',
  // folders
  folderCreate: 'Folder {name} created',
  folderRename: 'A folder was renamed to {name}',
  folderMove: (p) => (p.toTop ? 'The folder {name} moved to the top level' : 'The folder {name} was moved'),
  folderDelete: '{count} folder(s) deleted; {moved} invoice(s) moved',
  folderSync: 'Folder sorting: {created} built-in folder(s) created, {filed} invoice(s) filed',
  folderRuleSave: (p) => (p.created ? 'A filing rule was created' : 'A filing rule was updated') + (p.refiled === null ? '' : '; {refiled} invoice(s) re-filed'),
  folderRuleApply: 'A filing rule ran: {refiled} invoice(s) re-filed, {remaining} waiting',
  folderRuleDelete: 'A filing rule was deleted',
  folderRuleReorder: '{count} filing rules reordered',
  invoiceSetFolder: 'An invoice was filed by hand',
  // software
  softwareSync: 'Software detection: {classified} issuer(s) classified, {software} software, {suppliers} supplier(s)',
  softwareUpdate: 'The software {name} was updated',
  softwareToSupplier: 'The software {name} moved to the supplier suggestions with {count} invoice(s)',
  // team
  inviteMember: (p) => `{email} was invited as ${role(p)}`,
  resendInvite: 'The invite to {email} was sent again',
  revokeInvite: 'The invite to {email} was revoked',
  acceptInvite: (p) => `{email} joined as ${role(p)}`,
  updateMemberRole: (p) => `{email} is now ${role(p)}`,
  removeMember: '{email} was removed from the business',
  // account
  updateBusiness: 'The business details were updated',
  setBusinessApp: (p) => `The "${apps[String(p.app)] ?? ''}" screen was turned ${p.enabled ? 'on' : 'off'}`,
  setMyPublicLink: 'The public link was set to {slug}',
  saveBusinessIntegration: (p) => (p.disconnect ? 'The invoicing software {provider} was disconnected' : 'The credentials of the invoicing software {provider} were saved'),
  apiKeyCreate: 'API key {name} created',
  apiKeyRevoke: 'API key {name} revoked',
  itaConnectStart: 'Connecting the tax authority started',
  itaDisconnect: (p) => (p.removed ? 'The tax authority was disconnected' : 'The tax authority was not connected'),
  itaVerifyAllocation: (p) => `Allocation number checked with the tax authority: ${p.verdict === 'match' ? 'it matches' : p.verdict === 'amount_mismatch' ? 'the amount differs' : 'not found'}`,
  // employees
  employeeCreate: 'Employee added: {name}',
  employeeUpdate: 'The employee {name} was updated',
  employeeDelete: 'The employee {name} was deleted',
  chatConnectStart: 'Connecting Slack started',
  chatDisconnect: (p) => (p.removed ? 'Slack was disconnected' : 'Slack was not connected'),
  chatImportUsers: '{count} employee(s) imported from Slack ({created} new)',
  // signup forms
  analyzeSignupDoc: (p) => `The form {fileName} was ${p.again ? 'analyzed again' : 'uploaded and analyzed'}: ${p.fields === null ? 'the analysis failed' : '{fields} fields'}`,
  generateSignupDoc: 'A form was filled: {fileName}',
  deleteSignupDoc: 'The form {fileName} was deleted with {copies} filled copies',
  // accountant
  accFolderCreate: 'Accountant folder {name} created',
  accFolderRename: 'An accountant folder was renamed to {name}',
  accFolderMove: (p) => (p.toTop ? 'An accountant folder moved to the top level' : 'An accountant folder was moved'),
  accFolderDelete: '{count} accountant folder(s) deleted',
  accFolderSetSource: (p) => (p.source ? "An accountant folder's source was set" : 'An accountant folder became a plain folder'),
  accFolderTemplate: 'Accountant template: {count} folder(s) added',
  accZip: "An accountant's ZIP of {count} file(s) was built",
  accZipSend: "The accountant's package ({from} – {to}, {count} files) was sent to {recipients} recipient(s)",
  // statements
  statementsZip: 'The statements ZIP of {month} was built: {count} file(s)',
  statementsSend: 'The {month} package was sent to {recipients} recipient(s)',
  statementDelete: 'A statement was deleted',
  usbankConnect: 'The online bank was connected ({accounts} accounts)',
  usbankSync: sync('the bank statement'),
  usbankDisconnect: 'The online bank was disconnected ({accounts} accounts)',
  fxwalletConnect: 'The multi-currency account was connected ({accounts} balances)',
  fxwalletSync: sync('the multi-currency statement'),
  fxwalletDisconnect: 'The multi-currency account was disconnected ({accounts} accounts)',
  gatewayConnect: 'The payment gateway was connected ({accounts} merchants)',
  gatewaySync: sync('the payment gateway payout reports'),
  gatewayDisconnect: 'The payment gateway was disconnected ({accounts} merchants)',
  cardprocConnect: 'The card processor was connected',
  cardprocSync: sync('the card processor statement'),
  cardprocDisconnect: 'The card processor was disconnected ({accounts} accounts)',
  marketConnectStart: 'Connecting the freelance marketplace started',
  marketSync: sync('the freelance marketplace transactions'),
  marketDisconnect: 'The freelance marketplace was disconnected ({accounts} accounts)',
  // mailboxes and automations
  mailboxConnectStart: 'Connecting a mailbox started',
  mailboxDisconnect: 'A mailbox was disconnected with {automations} automation(s)',
  mailboxImportStart: 'Mail import: {seen} of {total} mails, {invoices} invoice(s)',
  mailboxImportCancel: 'A mail import was canceled',
  automationCreate: 'Automation {name} created',
  automationUpdate: (p) => `The automation {name} was updated (${p.enabled ? 'on' : 'paused'})`,
  automationDelete: 'An automation was deleted',
  automationRunNow: (p) => `An automation was run now: ${activityTemplate(runOutcomeEn, String(p.outcome), p) ?? ''}`,
  // written outside the operations (core/activity.ts SYSTEM_ACTIONS)
  supplierSubmit: (p) => `{supplier} gave payout details; the payment is ${status[String(p.status)] ?? ''}`.trim(),
  supplierInvoice: (p) => `{supplier} attached an invoice; the payment is ${status[String(p.status)] ?? ''}`.trim(),
  publicLinkRequest: '{supplier} filed a payment request through the public link',
  messageFailed: (p) => `${p.channel === 'email' ? 'An email' : 'A WhatsApp message'} to {to} ${p.refused ? 'was refused' : 'was not sent after several attempts'}`,
  itaConnectCallback: 'The tax authority was connected; the consent is valid until {until}',
  marketConnectCallback: 'The freelance marketplace was connected ({accounts} organizations)',
  mailboxConnectCallback: 'The mailbox {email} was connected',
  chatConnectCallback: 'The Slack workspace {workspace} was connected',
  recurringOccurrence: (p) => `A recurring payment request to {supplier} for {period} was made${p.amountAgorot === null || p.amountAgorot === undefined ? '' : ' ({amount})'}`,
  paymentReminder: (p) => `A reminder was sent to {supplier} ${channel[String(p.channel)] ?? ''}, {step} days after the payment request`.replace('  ', ' '),
  // reports
  spendExport: (p) => `Spend exported by ${p.by === 'category' ? 'category' : p.by === 'supplier' ? 'supplier' : 'pay method'} for {from} – {to} ({rows} rows)`,
};

export const runOutcomeEn: ActivityTemplates = {
  statementsRunning: 'Pulling {month}: {synced} of {total} account(s) ready',
  statementsMailed: (p) => `{month}: {synced} of {total} account(s) synced; the package was mailed to {recipients} recipient(s)${p.missing ? ' ({missing} file(s) missing)' : ''}`,
  statementsNotMailed: (p) =>
    `{month}: {synced} of {total} account(s) synced; not mailed${p.why === 'noRecipients' ? ': the automation has no recipients' : p.why === 'incomplete' ? ': {failed} failed, and it mails only when complete' : ''}`,
  statementsFailed: '{month}: the run failed',
  pollRunning: 'Checking the mailbox…',
  pollFailed: 'Checking the mailbox failed',
  pollImported: '{found} new mail(s) sent to an import',
  pollNothingNew: 'No new mail since the last check',
};

export const activityUiEn: typeof import('./activity.he.ts').activityUiHe = {
  kind: 'Kind',
  person: 'Who',
  everyone: 'Everyone',
  actors: { 'supplier link': 'Supplier link', 'public link': 'Public link', outbox: 'Message sending', 'mailbox import': 'Mail import', 'admin-cli': 'Admin tool' },
  allKinds: 'All',
  emptyFiltered: 'No activity matches the filter.',
  kinds: {
    payments: 'Payments',
    suppliers: 'Suppliers',
    invoices: 'Invoices',
    folders: 'Folders',
    software: 'Software',
    statements: 'Statements',
    mailboxes: 'Mail and automations',
    employees: 'Employees',
    signupDocs: 'Forms',
    accountant: 'Accountant',
    reports: 'Reports',
    team: 'Team',
    account: 'Account and settings',
    messages: 'Messages not sent',
  },
};
