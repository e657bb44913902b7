import { activityTemplate, type ActivityParams, type ActivityTemplates } from '../ui/activityText.ts';

// Passive or nominal forms: the person is shown beside the row, and Hebrew verbs would need their gender.
const role = (p: ActivityParams) => (p.role === 'admin' ? 'מנהל/ת' : 'משתמש/ת');
const channel: Record<string, string> = { wa: 'בוואטסאפ', em: 'במייל', email: 'במייל', link: 'כקישור בלבד' };
const reading: Record<string, string> = { read: 'נקראה', unread: 'ממתינה לקריאה', failed: 'הקריאה נכשלה' };
const payRule: Record<string, string> = { card: 'שולם בכרטיס', not_card: 'לא בכרטיס' };
const status: Record<string, string> = { sent: 'נשלח', awaiting_invoice: 'ממתין לחשבונית', ready: 'מוכן לתשלום', paid: 'שולם', canceled: 'בוטל', received: 'התקבל' };
const n = (k: string, one: string, many: string) => (p: ActivityParams) => (p[k] === 1 ? one : many);
const apps: Record<string, string> = { incoming: 'תשלומים נכנסים', invoices: 'חשבוניות', payments: 'תשלומים', software: 'תוכנות', statements: 'דפי חשבון', employees: 'עובדים', documents: 'טפסים', accountant: 'רואה חשבון' };
const sync = (what: string) => `התבקש ${what} לחודש {month}`;

export const activityHe: ActivityTemplates = {
  // payments
  createPayment: (p) => `נוצרה בקשת תשלום ל-{supplier}${p.amountAgorot === null ? ' (סכום פתוח)' : ' על {amount}'} ${channel[String(p.channel)] ?? ''}`.trim(),
  markPaid: (p) => `התשלום ל-{supplier} סומן כשולם ({amount})${p.proof ? ' עם אסמכתה' : ''}`,
  revertPaid: (p) => `התשלום ל-{supplier} הוחזר משולם ל"${status[String(p.status)] ?? ''}"`,
  cancelPayment: 'התשלום ל-{supplier} בוטל',
  resendPayment: (p) => `קישור התשלום נשלח שוב ל-{supplier} ${channel[String(p.channel)] ?? ''}`.trim(),
  payRunCreate: (p) => `נוצרה אצוות תשלומים של {count} תשלומים ליום {payDate}${p.amountAgorot === null || p.amountAgorot === undefined ? '' : ' ({amount})'}`,
  payRunMarkPaid: (p) => `{paid} תשלומים באצוות של {payDate} סומנו כשולמו${p.skipped ? '; {skipped} כבר שולמו' : ''}${p.refused ? '; {refused} לא שולמו' : ''}`,
  payRunCancel: 'אצוות התשלומים ליום {payDate} בוטלה; {released} תשלומים שוחררו',
  updatePaymentSettings: 'הגדרות התשלום ל-{supplier} עודכנו',
  paymentApprove: (p) => `התשלום ל-{supplier} ({amount}) אושר${p.state === 'approved' ? '' : '; נדרש עוד אישור'}`,
  paymentReject: 'התשלום ל-{supplier} ({amount}) נדחה: {reason}',
  recurringCreate: 'נוצר תשלום קבוע ל-{supplier} ({cadence})',
  recurringUpdate: (p) => (p.paused === true ? 'התשלום הקבוע ל-{supplier} הושהה' : p.paused === false ? 'התשלום הקבוע ל-{supplier} חודש' : 'התשלום הקבוע ל-{supplier} עודכן'),
  recurringDelete: 'התשלום הקבוע ל-{supplier} נמחק; התשלומים שנוצרו נשארו',
  approvalPolicySet: (p) => (p.amountAgorot === null ? 'אישור תשלומים בוטל' : p.amountAgorot === 0 ? 'כל תשלום צריך עכשיו {approvals} אישורים של מנהלים' : 'תשלומים מ-{amount} ומעלה צריכים עכשיו {approvals} אישורים של מנהלים'),
  // suppliers
  createSupplier: (p) => (p.type === 'software' ? 'נוספה תוכנה: {name}' : 'נוסף ספק: {name}'),
  saveSupplierContact: 'כרטיס הספק {supplier} עודכן',
  supplierMerge: (p) => (p.already ? 'הספק כבר מוזג לתוך {supplier}; דבר לא השתנה' : 'ספק מוזג לתוך {supplier}: עברו {payments} תשלומים ו-{invoices} חשבוניות'),
  supplierSuggestionsCreate: 'נוצרו {count} ספקים מההצעות; {assigned} חשבוניות שויכו',
  supplierSuggestionsDismiss: n('count', 'הצעת ספק אחת נדחתה', '{count} הצעות ספקים נדחו'),
  supplierSuggestionToSoftware: 'ההצעה {name} הועברה לתוכנות עם {count} חשבוניות',
  // invoices
  uploadInvoiceDoc: (p) => (p.skipped ? 'הקובץ {fileName} דולג: כפילות של חשבונית קיימת' : `החשבונית {fileName} הועלתה (${reading[String(p.status)] ?? ''}${p.duplicate ? ', ייתכן שכפולה' : ''})`),
  analyzeInvoice: (p) => `קריאת AI של החשבונית {fileName}: ${reading[String(p.status)] ?? ''}`,
  updateInvoiceDoc: 'החשבונית {fileName} עודכנה',
  deleteInvoiceDoc: (p) => `החשבונית {fileName} נמחקה${p.fileRemoved ? ' עם הקובץ' : ' (הקובץ נשאר בתשלום)'}`,
  createUploadUrl: 'הוכן קישור העלאה לקובץ {fileName}',
  invoiceBulkPayRule: (p) => `${n('count', 'חשבונית אחת סומנה', '{count} חשבוניות סומנו')(p)} "${payRule[String(p.rule)] ?? ''}"`,
  invoiceSetCategory: (p) => (p.category ? '{count} חשבוניות סווגו לקטגוריה {category}' : 'הקטגוריה הוסרה מ-{count} חשבוניות'),
  vendorPayRuleSet: (p) => (p.rule ? `כלל תשלום "${payRule[String(p.rule)] ?? ''}" נשמר למנפיק; {count} חשבוניות עודכנו` : 'כלל התשלום של המנפיק נשכח; {count} חשבוניות עודכנו'),
  vendorCategoryRuleSet: (p) => (p.category ? 'כלל קטגוריה {category} נשמר למנפיק; {count} חשבוניות עודכנו' : 'כלל הקטגוריה של המנפיק נשכח; {count} חשבוניות עודכנו'),
  categorySync: 'סיווג קטגוריות: {classified} סווגו, {unclassified} נשארו לך, {remaining} ממתינות',
  mailboxMailAsInvoice: (p) => (p.outcome === 'imported' ? 'גוף מייל נשמר כחשבונית' : p.outcome === 'duplicate' ? 'גוף מייל היה כפילות של חשבונית קיימת' : 'שמירת גוף מייל כחשבונית נכשלה'),
  invoicesMove: n('count', 'חשבונית אחת הועברה לתיקייה {folder}', '{count} חשבוניות הועברו לתיקייה {folder}'),
  invoicesAssignSupplier: n('count', 'חשבונית אחת שויכה לספק {supplier}', '{count} חשבוניות שויכו לספק {supplier}'),
  mailboxMailsBackfill: 'הושלמו {count} מיילים סרוקים ישנים; נשארו {remaining}',
  // folders
  folderCreate: 'נוצרה תיקייה {name}',
  folderRename: 'תיקייה שונתה לשם {name}',
  folderMove: (p) => (p.toTop ? 'התיקייה {name} הועברה לרמה העליונה' : 'התיקייה {name} הועברה'),
  folderDelete: 'נמחקו {count} תיקיות; {moved} חשבוניות הועברו',
  folderSync: 'סידור תיקיות: {created} תיקיות מובנות נוצרו, {filed} חשבוניות תויקו',
  folderRuleSave: (p) => (p.created ? 'נוצר כלל תיוק' : 'כלל תיוק עודכן') + (p.refiled === null ? '' : '; {refiled} חשבוניות תויקו מחדש'),
  folderRuleApply: 'כלל תיוק הופעל: {refiled} חשבוניות תויקו מחדש, {remaining} ממתינות',
  folderRuleDelete: 'כלל תיוק נמחק',
  folderRuleReorder: 'סדר {count} כללי התיוק שונה',
  invoiceSetFolder: 'חשבונית תויקה ידנית',
  // software
  softwareSync: 'זיהוי תוכנות: {classified} מנפיקים סווגו, {software} תוכנות, {suppliers} ספקים',
  softwareUpdate: 'התוכנה {name} עודכנה',
  softwareToSupplier: 'התוכנה {name} הועברה להצעות הספקים עם {count} חשבוניות',
  // team
  inviteMember: (p) => `נשלחה הזמנה ל-{email} בתפקיד ${role(p)}`,
  resendInvite: 'ההזמנה ל-{email} נשלחה שוב',
  revokeInvite: 'ההזמנה ל-{email} בוטלה',
  acceptInvite: (p) => `{email} הצטרף/ה בתפקיד ${role(p)}`,
  updateMemberRole: (p) => `התפקיד של {email} שונה ל${role(p)}`,
  removeMember: '{email} הוסר/ה מהעסק',
  // account
  updateBusiness: 'פרטי העסק עודכנו',
  setBusinessApp: (p) => `המסך "${apps[String(p.app)] ?? ''}" ${p.enabled ? 'הופעל' : 'כובה'}`,
  setMyPublicLink: 'הקישור הציבורי נקבע ל-{slug}',
  saveBusinessIntegration: (p) => (p.disconnect ? 'תוכנת החשבוניות {provider} נותקה' : 'פרטי הגישה לתוכנת החשבוניות {provider} נשמרו'),
  apiKeyCreate: 'נוצר מפתח API בשם {name}',
  apiKeyRevoke: 'מפתח ה-API {name} בוטל',
  itaConnectStart: 'התחיל חיבור לרשות המסים',
  itaDisconnect: (p) => (p.removed ? 'רשות המסים נותקה' : 'רשות המסים לא הייתה מחוברת'),
  itaVerifyAllocation: (p) => `מספר ההקצאה נבדק ברשות המסים: ${p.verdict === 'match' ? 'תקין' : p.verdict === 'amount_mismatch' ? 'הסכום לא תואם' : 'לא נמצא'}`,
  // employees
  employeeCreate: 'נוסף עובד: {name}',
  employeeUpdate: 'פרטי העובד {name} עודכנו',
  employeeDelete: 'העובד {name} נמחק',
  chatConnectStart: 'התחיל חיבור ל-Slack',
  chatDisconnect: (p) => (p.removed ? 'Slack נותק' : 'Slack לא היה מחובר'),
  chatImportUsers: 'יובאו {count} עובדים מ-Slack ({created} חדשים)',
  // signup forms
  analyzeSignupDoc: (p) => `הטופס {fileName} ${p.again ? 'נותח שוב' : 'הועלה ונותח'}: ${p.fields === null ? 'הניתוח נכשל' : '{fields} שדות'}`,
  generateSignupDoc: 'טופס מולא: {fileName}',
  deleteSignupDoc: 'הטופס {fileName} נמחק עם {copies} עותקים ממולאים',
  // accountant
  accFolderCreate: 'נוצרה תיקיית רואה חשבון {name}',
  accFolderRename: 'תיקיית רואה חשבון שונתה לשם {name}',
  accFolderMove: (p) => (p.toTop ? 'תיקיית רואה חשבון הועברה לרמה העליונה' : 'תיקיית רואה חשבון הועברה'),
  accFolderDelete: 'נמחקו {count} תיקיות רואה חשבון',
  accFolderSetSource: (p) => (p.source ? 'נקבע מקור לתיקיית רואה חשבון' : 'תיקיית רואה חשבון הפכה לתיקייה רגילה'),
  accFolderTemplate: 'תבנית רואה חשבון: נוספו {count} תיקיות',
  accZip: 'נבנה ZIP לרואה החשבון עם {count} קבצים',
  accZipSend: 'החבילה לרואה החשבון ({from} – {to}, {count} קבצים) נשלחה ל-{recipients} נמענים',
  // statements
  statementsZip: 'נבנה ZIP של דפי החשבון לחודש {month}: {count} קבצים',
  statementsSend: 'החבילה של {month} נשלחה ל-{recipients} נמענים',
  statementDelete: 'דף חשבון נמחק',
  usbankConnect: 'הבנק המקוון חובר ({accounts} חשבונות)',
  usbankSync: sync('דף הבנק'),
  usbankDisconnect: 'הבנק המקוון נותק ({accounts} חשבונות)',
  fxwalletConnect: 'החשבון הרב-מטבעי חובר ({accounts} יתרות)',
  fxwalletSync: sync('דף החשבון הרב-מטבעי'),
  fxwalletDisconnect: 'החשבון הרב-מטבעי נותק ({accounts} חשבונות)',
  gatewayConnect: 'שער התשלומים חובר ({accounts} בתי עסק)',
  gatewaySync: sync('דוח התשלומים משער התשלומים'),
  gatewayDisconnect: 'שער התשלומים נותק ({accounts} בתי עסק)',
  cardprocConnect: 'סולק האשראי חובר',
  cardprocSync: sync('דף סולק האשראי'),
  cardprocDisconnect: 'סולק האשראי נותק ({accounts} חשבונות)',
  marketConnectStart: 'התחיל חיבור לשוק הפרילנסרים',
  marketSync: sync('פירוט שוק הפרילנסרים'),
  marketDisconnect: 'שוק הפרילנסרים נותק ({accounts} חשבונות)',
  // mailboxes and automations
  mailboxConnectStart: 'התחיל חיבור תיבת מייל',
  mailboxDisconnect: 'תיבת מייל נותקה עם {automations} אוטומציות',
  mailboxImportStart: 'ייבוא מהמייל: {seen} מתוך {total} מיילים, {invoices} חשבוניות',
  mailboxImportCancel: 'ייבוא מהמייל בוטל',
  automationCreate: 'נוצרה אוטומציה {name}',
  automationUpdate: (p) => `האוטומציה {name} עודכנה (${p.enabled ? 'פעילה' : 'מושהית'})`,
  automationDelete: 'אוטומציה נמחקה',
  automationRunNow: (p) => `אוטומציה הופעלה עכשיו: ${activityTemplate(runOutcomeHe, String(p.outcome), p) ?? ''}`,
  // written outside the operations (core/activity.ts SYSTEM_ACTIONS)
  supplierSubmit: (p) => `{supplier} מסר/ה פרטים לתשלום; התשלום ${status[String(p.status)] ?? ''}`.trim(),
  supplierInvoice: (p) => `{supplier} צירף/ה חשבונית; התשלום ${status[String(p.status)] ?? ''}`.trim(),
  publicLinkRequest: '{supplier} הגיש/ה בקשת תשלום דרך הקישור הציבורי',
  messageFailed: (p) => `${p.channel === 'email' ? 'מייל' : 'הודעת וואטסאפ'} ל-{to} ${p.refused ? 'נדחה/תה' : 'לא נשלח/ה אחרי כמה ניסיונות'}`,
  itaConnectCallback: 'רשות המסים חוברה; ההסכמה בתוקף עד {until}',
  marketConnectCallback: 'שוק הפרילנסרים חובר ({accounts} ארגונים)',
  mailboxConnectCallback: 'תיבת המייל {email} חוברה',
  chatConnectCallback: 'סביבת ה-Slack {workspace} חוברה',
  recurringOccurrence: (p) => `נשלחה בקשת תשלום קבועה ל-{supplier} לתקופה {period}${p.amountAgorot === null || p.amountAgorot === undefined ? '' : ' ({amount})'}`,
  paymentReminder: (p) => `נשלחה תזכורת ל-{supplier} ${channel[String(p.channel)] ?? ''}, {step} ימים אחרי בקשת התשלום`.replace('  ', ' '),
  // reports
  spendExport: (p) => `יוצא דוח הוצאות לפי ${p.by === 'category' ? 'קטגוריה' : p.by === 'supplier' ? 'ספק' : 'אמצעי תשלום'} ל-{from} – {to} ({rows} שורות)`,
};

/** An automation run's outcome (automationRuns `outcome` and `params`). */
export const runOutcomeHe: ActivityTemplates = {
  statementsRunning: 'מושכים את דפי {month}: {synced} מתוך {total} חשבונות מוכנים',
  statementsMailed: (p) => `{month}: {synced} מתוך {total} חשבונות סונכרנו; החבילה נשלחה ל-{recipients} נמענים${p.missing ? ' (חסרים {missing} קבצים)' : ''}`,
  statementsNotMailed: (p) =>
    `{month}: {synced} מתוך {total} חשבונות סונכרנו; לא נשלח${p.why === 'noRecipients' ? ': אין נמענים לאוטומציה' : p.why === 'incomplete' ? ': {failed} נכשלו, והשליחה רק כשהכול הושלם' : ''}`,
  statementsFailed: '{month}: הריצה נכשלה',
  pollRunning: 'בודקים את תיבת המייל…',
  pollFailed: 'בדיקת תיבת המייל נכשלה',
  pollImported: '{found} מיילים חדשים נשלחו לייבוא',
  pollNothingNew: 'אין מייל חדש מאז הבדיקה הקודמת',
};

/** The log screen's own words (kept here, beside the templates, rather than in he.ts). */
export const activityUiHe = {
  kind: 'סוג',
  person: 'מי',
  everyone: 'כולם',
  allKinds: 'הכול',
  emptyFiltered: 'אין פעילות שמתאימה לסינון.',
  // Rows written by the system have no person: the key name it wrote them under (core/activity.ts callers), in words.
  actors: { 'supplier link': 'קישור הספק', 'public link': 'הקישור הציבורי', outbox: 'שליחת ההודעות', 'mailbox import': 'ייבוא מהמייל', 'admin-cli': 'כלי הניהול' } as Record<string, string>,
  kinds: {
    payments: 'תשלומים',
    suppliers: 'ספקים',
    invoices: 'חשבוניות',
    folders: 'תיקיות',
    software: 'תוכנות',
    statements: 'דפי חשבון',
    mailboxes: 'מייל ואוטומציות',
    employees: 'עובדים',
    signupDocs: 'טפסים',
    accountant: 'רואה חשבון',
    reports: 'דוחות',
    team: 'צוות',
    account: 'חשבון והגדרות',
    messages: 'הודעות שלא נשלחו',
  } as Record<string, string>,
};
