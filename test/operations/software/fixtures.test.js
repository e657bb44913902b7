"use strict";
var __assign = (this && this.__assign) || function () {
    __assign = Object.assign || function(t) {
        for (var s, i = 1, n = arguments.length; i < n; i++) {
            s = arguments[i];
            for (var p in s) if (Object.prototype.hasOwnProperty.call(s, p))
                t[p] = s[p];
        }
        return t;
    };
    return __assign.apply(this, arguments);
};
var __awaiter = (this && this.__awaiter) || function (thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
};
var __generator = (this && this.__generator) || function (thisArg, body) {
    var _ = { label: 0, sent: function() { if (t[0] & 1) throw t[1]; return t[1]; }, trys: [], ops: [] }, f, y, t, g = Object.create((typeof Iterator === "function" ? Iterator : Object).prototype);
    return g.next = verb(0), g["throw"] = verb(1), g["return"] = verb(2), typeof Symbol === "function" && (g[Symbol.iterator] = function() { return this; }), g;
    function verb(n) { return function (v) { return step([n, v]); }; }
    function step(op) {
        if (f) throw new TypeError("Generator is already executing.");
        while (g && (g = 0, op[0] && (_ = 0)), _) try {
            if (f = 1, y && (t = op[0] & 2 ? y["return"] : op[0] ? y["throw"] || ((t = y["return"]) && t.call(y), 0) : y.next) && !(t = t.call(y, op[1])).done) return t;
            if (y = 0, t) op = [op[0] & 2, t.value];
            switch (op[0]) {
                case 0: case 1: t = op; break;
                case 4: _.label++; return { value: op[1], done: false };
                case 5: _.label++; y = op[1]; op = [0]; continue;
                case 7: op = _.ops.pop(); _.trys.pop(); continue;
                default:
                    if (!(t = _.trys, t = t.length > 0 && t[t.length - 1]) && (op[0] === 6 || op[0] === 2)) { _ = 0; continue; }
                    if (op[0] === 3 && (!t || (op[1] > t[0] && op[1] < t[3]))) { _.label = op[1]; break; }
                    if (op[0] === 6 && _.label < t[1]) { _.label = t[1]; t = op; break; }
                    if (t && _.label < t[2]) { _.label = t[2]; _.ops.push(op); break; }
                    if (t[2]) _.ops.pop();
                    _.trys.pop(); continue;
            }
            op = body.call(thisArg, _);
        } catch (e) { op = [6, e]; y = 0; } finally { f = t = 0; }
        if (op[0] & 5) throw op[1]; return { value: op[0] ? op[1] : void 0, done: true };
    }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.reading = reading;
exports.invoiceDoc = invoiceDoc;
exports.putInvoices = putInvoices;
exports.seedIssuer = seedIssuer;
exports.invoice = invoice;
exports.invoicesOf = invoicesOf;
exports.scriptedAi = scriptedAi;
/**
 * Shared fixtures for the software and supplier-suggestion tests (no tests of its own; the name keeps it
 * inside the test folders these suites own): complete InvoiceDoc documents written straight to the store,
 * as an upload leaves them, and a scripted fake of the AI port.
 */
var node_crypto_1 = require("node:crypto");
var invoices_ts_1 = require("../../../functions/src/domain/invoices.ts");
var vendorKeys_ts_1 = require("../../../functions/src/domain/vendorKeys.ts");
var issuers_ts_1 = require("../../../functions/src/domain/issuers.ts");
function reading(issuer, lineItems) {
    var _a, _b, _c, _d;
    if (lineItems === void 0) { lineItems = []; }
    return {
        issuer: { name: (_a = issuer.name) !== null && _a !== void 0 ? _a : null, vatId: (_b = issuer.vatId) !== null && _b !== void 0 ? _b : null, email: (_c = issuer.email) !== null && _c !== void 0 ? _c : null, phone: (_d = issuer.phone) !== null && _d !== void 0 ? _d : null },
        docType: 'tax_invoice',
        number: String(1000 + Math.floor(Math.random() * 9000)),
        date: '2025-03-14',
        totalMinor: 11800,
        currency: 'ILS',
        vatMinor: 1800,
        payMethod: 'card',
        cardEnding: '4242',
        lineItems: lineItems.map(function (description) { return ({ description: description, quantity: 1, totalMinor: 10000 }); }),
        bank: null,
        allocationNumber: null,
    };
}
/** A complete document as uploadInvoiceDoc stores it after a successful reading. */
function invoiceDoc(businessId, r, over) {
    var _a, _b;
    if (over === void 0) { over = {}; }
    var docId = (_a = over.docId) !== null && _a !== void 0 ? _a : (0, node_crypto_1.randomUUID)().replace(/-/g, '').slice(0, 20);
    var at = '2025-03-15T10:00:00.000Z';
    return __assign({ docId: docId, businessId: businessId, fileId: "file-".concat(docId), fileName: "".concat(docId, ".pdf"), contentType: 'application/pdf', size: 1234, sha256: docId.padEnd(64, '0'), source: 'upload', paymentId: null, reading: r, readingStatus: r ? 'read' : 'unread', readingError: null, readAt: r ? at : null, vendorKey: (0, vendorKeys_ts_1.vendorKeyOf)(r), duplicateOf: null, mailbox: null, folderId: invoices_ts_1.GENERAL_FOLDER, folderBy: 'default', folderRuleId: null, category: '', categoryBy: null, note: '', payMark: '', effectivePayMark: 'paid_card', supplierKey: null, supplierName: '', supplierBy: null, suggestionId: null, softwareId: null, date: (_b = r === null || r === void 0 ? void 0 : r.date) !== null && _b !== void 0 ? _b : '2025-03-15', search: [], createdAt: at, createdAtMs: Date.parse(at), updatedAt: at }, over);
}
function putInvoices(store, docs) {
    return __awaiter(this, void 0, void 0, function () {
        var i, batch, _i, _a, d;
        return __generator(this, function (_b) {
            switch (_b.label) {
                case 0:
                    i = 0;
                    _b.label = 1;
                case 1:
                    if (!(i < docs.length)) return [3 /*break*/, 4];
                    batch = store.batch();
                    for (_i = 0, _a = docs.slice(i, i + 400); _i < _a.length; _i++) {
                        d = _a[_i];
                        batch.set((0, invoices_ts_1.invoicesPath)(d.businessId, d.docId), __assign({}, d));
                    }
                    return [4 /*yield*/, batch.commit()];
                case 2:
                    _b.sent();
                    _b.label = 3;
                case 3:
                    i += 400;
                    return [3 /*break*/, 1];
                case 4: return [2 /*return*/];
            }
        });
    });
}
/**
 * `count` invoices of one issuer. With `suggestion` (the default) they are what an upload leaves when no
 * supplier matched: each carries suggestionId and the issuer's suggestion lists them (recordSuggestion).
 */
function seedIssuer(store_1, businessId_1, issuer_1) {
    return __awaiter(this, arguments, void 0, function (store, businessId, issuer, opts) {
        var _a, count, _b, lineItems, _c, suggestion, _d, over, r, vendorKey, id, docs, at_1, _loop_1, _i, _e, d;
        var _this = this;
        if (opts === void 0) { opts = {}; }
        return __generator(this, function (_f) {
            switch (_f.label) {
                case 0:
                    _a = opts.count, count = _a === void 0 ? 1 : _a, _b = opts.lineItems, lineItems = _b === void 0 ? [] : _b, _c = opts.suggestion, suggestion = _c === void 0 ? true : _c, _d = opts.over, over = _d === void 0 ? {} : _d;
                    r = reading(issuer, lineItems);
                    vendorKey = (0, vendorKeys_ts_1.vendorKeyOf)(r);
                    id = (0, issuers_ts_1.issuerId)(vendorKey);
                    docs = Array.from({ length: count }, function () { return invoiceDoc(businessId, r, __assign({ suggestionId: suggestion ? id : null }, over)); });
                    return [4 /*yield*/, putInvoices(store, docs)];
                case 1:
                    _f.sent();
                    if (!suggestion) return [3 /*break*/, 5];
                    at_1 = new Date().toISOString();
                    _loop_1 = function (d) {
                        return __generator(this, function (_g) {
                            switch (_g.label) {
                                case 0: return [4 /*yield*/, store.runTransaction(function (tx) { return __awaiter(_this, void 0, void 0, function () {
                                        var existing;
                                        var _a;
                                        return __generator(this, function (_b) {
                                            switch (_b.label) {
                                                case 0: return [4 /*yield*/, tx.get((0, issuers_ts_1.suggestionsPath)(businessId, id))];
                                                case 1:
                                                    existing = _b.sent();
                                                    (0, issuers_ts_1.recordSuggestion)(tx, d, ((_a = existing === null || existing === void 0 ? void 0 : existing.data) !== null && _a !== void 0 ? _a : null), at_1);
                                                    return [2 /*return*/];
                                            }
                                        });
                                    }); })];
                                case 1:
                                    _g.sent();
                                    return [2 /*return*/];
                            }
                        });
                    };
                    _i = 0, _e = docs.slice(0, 3);
                    _f.label = 2;
                case 2:
                    if (!(_i < _e.length)) return [3 /*break*/, 5];
                    d = _e[_i];
                    return [5 /*yield**/, _loop_1(d)];
                case 3:
                    _f.sent();
                    _f.label = 4;
                case 4:
                    _i++;
                    return [3 /*break*/, 2];
                case 5: return [2 /*return*/, { vendorKey: vendorKey, id: id, docIds: docs.map(function (d) { return d.docId; }) }];
            }
        });
    });
}
function invoice(store, businessId, docId) {
    return __awaiter(this, void 0, void 0, function () {
        var doc;
        return __generator(this, function (_a) {
            switch (_a.label) {
                case 0: return [4 /*yield*/, store.get((0, invoices_ts_1.invoicesPath)(businessId, docId))];
                case 1:
                    doc = _a.sent();
                    if (!doc)
                        throw new Error("no invoice ".concat(docId));
                    return [2 /*return*/, doc.data];
            }
        });
    });
}
function invoicesOf(store, businessId, docIds) {
    return __awaiter(this, void 0, void 0, function () {
        return __generator(this, function (_a) {
            switch (_a.label) {
                case 0: return [4 /*yield*/, store.getAll(docIds.map(function (d) { return (0, invoices_ts_1.invoicesPath)(businessId, d); }))];
                case 1: return [2 /*return*/, (_a.sent()).map(function (d) { return d.data; })];
            }
        });
    });
}
function scriptedAi(softwareNames, configured) {
    if (softwareNames === void 0) { softwareNames = []; }
    if (configured === void 0) { configured = true; }
    var ai = {
        configured: configured,
        calls: [],
        softwareNames: new Set(softwareNames),
        reply: function (issuers) { return ({ ok: true, value: Object.fromEntries(issuers.map(function (i) { return [i.key, ai.softwareNames.has(i.name) ? 'software' : 'supplier']; })) }); },
        readInvoice: function () {
            return __awaiter(this, void 0, void 0, function () {
                return __generator(this, function (_a) {
                    throw new Error('readInvoice is not scripted in these tests');
                });
            });
        },
        classifyCategories: function () {
            return __awaiter(this, void 0, void 0, function () {
                return __generator(this, function (_a) {
                    throw new Error('classifyCategories is not scripted in these tests');
                });
            });
        },
        classifySoftware: function (issuers) {
            return __awaiter(this, void 0, void 0, function () {
                return __generator(this, function (_a) {
                    if (!ai.configured)
                        return [2 /*return*/, { ok: false, reason: 'AI is not configured' }];
                    ai.calls.push(issuers);
                    return [2 /*return*/, ai.reply(issuers)];
                });
            });
        },
    };
    return ai;
}
