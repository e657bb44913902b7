/**
 * Israeli banks a supplier can be paid to, by the Bank of Israel's codes, with the number of digits
 * their branch and account numbers have. Account lengths are ranges: banks print them with or
 * without a check digit, and the supplier types what their cheque book shows.
 */
export interface IsraeliBank {
  code: string;
  he: string;
  en: string;
  account: [min: number, max: number];
}

export const ISRAELI_BANKS: IsraeliBank[] = [
  { code: '03', he: 'בנק אש ישראל', en: 'esh bank Israel', account: [6, 9] },
  { code: '04', he: 'בנק יהב', en: 'Bank Yahav', account: [6, 9] },
  { code: '09', he: 'בנק הדואר', en: 'Postal Bank', account: [6, 9] },
  { code: '10', he: 'בנק לאומי', en: 'Bank Leumi', account: [6, 9] },
  { code: '11', he: 'בנק דיסקונט', en: 'Discount Bank', account: [6, 9] },
  { code: '12', he: 'בנק הפועלים', en: 'Bank Hapoalim', account: [5, 6] },
  { code: '14', he: 'בנק אוצר החייל', en: 'Otsar Ha-Hayal', account: [6, 9] },
  { code: '17', he: 'בנק מרכנתיל דיסקונט', en: 'Mercantile Discount Bank', account: [6, 9] },
  { code: '18', he: 'וואן זירו', en: 'One Zero Bank', account: [6, 9] },
  { code: '20', he: 'בנק מזרחי טפחות', en: 'Mizrahi Tefahot', account: [6, 6] },
  { code: '31', he: 'הבנק הבינלאומי', en: 'First International Bank', account: [6, 9] },
  { code: '46', he: 'בנק מסד', en: 'Bank Massad', account: [6, 9] },
  { code: '52', he: 'בנק פועלי אגודת ישראל', en: 'Poalei Agudat Israel Bank', account: [6, 9] },
  { code: '54', he: 'בנק ירושלים', en: 'Bank of Jerusalem', account: [6, 9] },
];

/** The picker's last entry: a bank not on the list, whose code the supplier types. */
export const OTHER_BANK = 'other';

/** The account length of a bank the list does not know. */
export const OTHER_BANK_ACCOUNT: [min: number, max: number] = [4, 9];

/**
 * Codes that no longer take transfers because their bank merged into another: Union Bank (13) into
 * Mizrahi-Tefahot (20), whose accounts were moved to Mizrahi-Tefahot's numbers.
 */
export const MERGED_BANKS: Record<string, { he: string; en: string; into: string }> = {
  '13': { he: 'בנק אגוד', en: 'Union Bank', into: '20' },
};

export const BRANCH_DIGITS = 3;

export const bankByCode = (code: string): IsraeliBank | undefined => ISRAELI_BANKS.find((b) => b.code === code.padStart(2, '0'));
