/**
 * The fixed expense categories (categoriesList), chosen for Israeli small businesses and
 * freelancers, roughly along the lines of the tax authority's expense headings.
 * Ids are stable: rules and documents store them.
 */
export const CATEGORIES = [
  { id: 'office_supplies', label: 'ציוד משרדי' },
  { id: 'equipment', label: 'ציוד וריהוט' },
  { id: 'software', label: 'תוכנות ומנויים' },
  { id: 'hosting_cloud', label: 'אחסון ושירותי ענן' },
  { id: 'communication', label: 'טלפון ואינטרנט' },
  { id: 'advertising', label: 'פרסום ושיווק' },
  { id: 'professional_services', label: 'שירותים מקצועיים' },
  { id: 'accounting_legal', label: 'הנהלת חשבונות וייעוץ משפטי' },
  { id: 'subcontractors', label: 'קבלני משנה ופרילנסרים' },
  { id: 'inventory', label: 'מלאי וחומרי גלם' },
  { id: 'rent', label: 'שכירות' },
  { id: 'utilities', label: 'חשמל, מים וארנונה' },
  { id: 'maintenance', label: 'אחזקה ותיקונים' },
  { id: 'vehicle_fuel', label: 'דלק' },
  { id: 'vehicle_maintenance', label: 'אחזקת רכב' },
  { id: 'transportation', label: 'תחבורה ונסיעות' },
  { id: 'travel_abroad', label: 'נסיעות לחו"ל' },
  { id: 'meals_hospitality', label: 'כיבוד ואירוח' },
  { id: 'gifts', label: 'מתנות ללקוחות' },
  { id: 'training', label: 'השתלמויות וספרות מקצועית' },
  { id: 'insurance', label: 'ביטוח' },
  { id: 'bank_fees', label: 'עמלות בנק וסליקה' },
  { id: 'postage_shipping', label: 'דואר ומשלוחים' },
  { id: 'salaries', label: 'שכר עובדים' },
  { id: 'taxes_fees', label: 'מסים ואגרות' },
  { id: 'other', label: 'אחר' },
] as const;

export type CategoryId = (typeof CATEGORIES)[number]['id'];
export const CATEGORY_IDS = new Set<string>(CATEGORIES.map((c) => c.id));
export const isCategory = (id: string) => CATEGORY_IDS.has(id);
const LABELS = new Map<string, string>(CATEGORIES.map((c) => [c.id, c.label]));
/** The Hebrew label of a category id; an unknown id as it is. */
export const categoryLabel = (id: string) => LABELS.get(id) ?? id;
