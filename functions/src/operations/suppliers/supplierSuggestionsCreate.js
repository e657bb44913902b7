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
var __spreadArray = (this && this.__spreadArray) || function (to, from, pack) {
    if (pack || arguments.length === 2) for (var i = 0, l = from.length, ar; i < l; i++) {
        if (ar || !(i in from)) {
            if (!ar) ar = Array.prototype.slice.call(from, 0, i);
            ar[i] = from[i];
        }
    }
    return to.concat(ar || Array.prototype.slice.call(from));
};
Object.defineProperty(exports, "__esModule", { value: true });
var zod_1 = require("zod");
var defineOperation_ts_1 = require("../../core/defineOperation.ts");
var schema_ts_1 = require("../../core/schema.ts");
var errors_ts_1 = require("../../core/errors.ts");
var clock_ts_1 = require("../../core/clock.ts");
var contacts_ts_1 = require("../../domain/contacts.ts");
var issuers_ts_1 = require("../../domain/issuers.ts");
var suppliers_ts_1 = require("../../domain/suppliers.ts");
var software_ts_1 = require("../../domain/software.ts");
// A contact the AI read off an invoice may be garbage; it then counts as missing rather than failing the call.
var readable = function (normalize) {
    try {
        return normalize();
    }
    catch (_a) {
        return null;
    }
};
var output = zod_1.z.object({
    created: zod_1.z.array(zod_1.z.object({ id: zod_1.z.string(), supplierKey: zod_1.z.string(), existing: zod_1.z.boolean(), assigned: zod_1.z.int().min(0) })),
    needsContact: zod_1.z.array(zod_1.z.string()),
    notFound: zod_1.z.array(zod_1.z.string()),
    skipped: zod_1.z.array(zod_1.z.object({ id: zod_1.z.string(), reason: zod_1.z.string() })),
});
var SOFTWARE_REASON = 'it is in the software list; move it back with softwareToSupplier first';
exports.default = (0, defineOperation_ts_1.defineOperation)({
    name: 'supplierSuggestionsCreate',
    group: 'suppliers',
    summary: 'Make suppliers of suggestions. The key is the phone (else the email) from `contact` or, failing that, from the suggestion; a suggestion ' +
        'with neither is returned in needsContact and nothing is created for it. An existing supplier with that key is reused. The ' +
        "suggestion's invoices are assigned to the supplier. Result: created [{id, supplierKey, existing, assigned}], needsContact, notFound, skipped.",
    flags: { idempotent: true },
    input: (0, schema_ts_1.input)({
        ids: zod_1.z.array((0, schema_ts_1.id)()).min(1).max(software_ts_1.MAX_SUGGESTION_IDS),
        contact: zod_1.z.record((0, schema_ts_1.id)(), zod_1.z.strictObject({ phone: (0, schema_ts_1.text)(40).optional(), email: (0, schema_ts_1.text)(schema_ts_1.LIMITS.email).optional() })).optional(),
        kind: zod_1.z.enum(suppliers_ts_1.SUPPLIER_KINDS).default('supplier'),
    }),
    output: output,
    run: function (_a, ctx_1) {
        return __awaiter(this, arguments, void 0, function (_b, ctx) {
            var businessId, ids, given, _i, _c, _d, sid, c, at, found, out, _loop_1, _e, _f, _g, i, sid;
            var _this = this;
            var _h, _j, _k, _l, _m, _o, _p;
            var rawIds = _b.ids, _q = _b.contact, contact = _q === void 0 ? {} : _q, kind = _b.kind;
            return __generator(this, function (_r) {
                switch (_r.label) {
                    case 0:
                        businessId = ctx.caller.businessId;
                        ids = __spreadArray([], new Set(rawIds), true);
                        given = new Map();
                        for (_i = 0, _c = Object.entries(contact); _i < _c.length; _i++) {
                            _d = _c[_i], sid = _d[0], c = _d[1];
                            if (!ids.includes(sid))
                                throw (0, errors_ts_1.invalid)("contact.".concat(sid), 'is not one of ids');
                            given.set(sid, {
                                phone: ((_h = c.phone) === null || _h === void 0 ? void 0 : _h.trim()) ? (0, contacts_ts_1.normalizePhone)(c.phone, "contact.".concat(sid, ".phone")) : null,
                                email: ((_j = c.email) === null || _j === void 0 ? void 0 : _j.trim()) ? (0, contacts_ts_1.normalizeEmail)(c.email, "contact.".concat(sid, ".email")) : null,
                            });
                        }
                        at = (0, clock_ts_1.iso)(ctx.clock.now());
                        return [4 /*yield*/, ctx.store.getAll(ids.map(function (sid) { return (0, issuers_ts_1.suggestionsPath)(businessId, sid); }))];
                    case 1:
                        found = _r.sent();
                        out = { created: [], needsContact: [], notFound: [], skipped: [] };
                        _loop_1 = function (i, sid) {
                            var pre, phone, email, key, sgPath, supPath, outcome, assigned;
                            return __generator(this, function (_s) {
                                switch (_s.label) {
                                    case 0:
                                        pre = (_k = found[i]) === null || _k === void 0 ? void 0 : _k.data;
                                        if (!pre) {
                                            out.notFound.push(sid);
                                            return [2 /*return*/, "continue"];
                                        }
                                        if (pre.status === 'software') {
                                            out.skipped.push({ id: sid, reason: SOFTWARE_REASON });
                                            return [2 /*return*/, "continue"];
                                        }
                                        phone = null;
                                        email = null;
                                        if (pre.status === 'created' && pre.supplierKey) {
                                            key = pre.supplierKey; // again: finish assigning, e.g. after an interrupted call
                                        }
                                        else {
                                            phone = (_m = (_l = given.get(sid)) === null || _l === void 0 ? void 0 : _l.phone) !== null && _m !== void 0 ? _m : (pre.phone ? readable(function () { return (0, contacts_ts_1.normalizePhone)(pre.phone, 'phone'); }) : null);
                                            email = (_p = (_o = given.get(sid)) === null || _o === void 0 ? void 0 : _o.email) !== null && _p !== void 0 ? _p : (pre.email ? readable(function () { return (0, contacts_ts_1.normalizeEmail)(pre.email, 'email'); }) : null);
                                            if (!phone && !email) {
                                                out.needsContact.push(sid);
                                                return [2 /*return*/, "continue"];
                                            }
                                            key = (phone !== null && phone !== void 0 ? phone : email);
                                        }
                                        sgPath = (0, issuers_ts_1.suggestionsPath)(businessId, sid);
                                        supPath = (0, suppliers_ts_1.suppliersPath)(businessId, key);
                                        return [4 /*yield*/, ctx.store.runTransaction(function (tx) { return __awaiter(_this, void 0, void 0, function () {
                                                var _a, sg, sup, cur, supplier, record;
                                                var _b;
                                                return __generator(this, function (_c) {
                                                    switch (_c.label) {
                                                        case 0: return [4 /*yield*/, tx.getAll([sgPath, supPath])];
                                                        case 1:
                                                            _a = _c.sent(), sg = _a[0], sup = _a[1];
                                                            if (!sg)
                                                                return [2 /*return*/, { kind: 'notFound' }];
                                                            cur = sg.data;
                                                            if (cur.status === 'software')
                                                                return [2 /*return*/, { kind: 'skipped', reason: SOFTWARE_REASON }];
                                                            supplier = sup === null || sup === void 0 ? void 0 : sup.data;
                                                            if (cur.status === 'created') {
                                                                if (cur.supplierKey !== key || !supplier)
                                                                    return [2 /*return*/, { kind: 'skipped', reason: "it was made supplier ".concat((_b = cur.supplierKey) !== null && _b !== void 0 ? _b : '', " by another request").trim() }];
                                                                return [2 /*return*/, { kind: 'created', key: key, name: supplier.name, existing: true }];
                                                            }
                                                            if (!supplier) {
                                                                record = {
                                                                    key: key,
                                                                    name: cur.name || key,
                                                                    phone: phone,
                                                                    email: email,
                                                                    kind: kind,
                                                                    manual: true,
                                                                    paymentCount: 0,
                                                                    lastPaymentAt: null,
                                                                    // The VAT id is what later invoices of this issuer carry.
                                                                    card: cur.vatId ? { companyId: cur.vatId } : {},
                                                                    supplierSide: null,
                                                                    createdAt: at,
                                                                    updatedAt: at,
                                                                };
                                                                tx.set(supPath, __assign({}, record));
                                                            }
                                                            tx.update(sgPath, { status: 'created', supplierKey: key, updatedAt: at });
                                                            return [2 /*return*/, { kind: 'created', key: key, name: (supplier === null || supplier === void 0 ? void 0 : supplier.name) || cur.name || key, existing: !!supplier }];
                                                    }
                                                });
                                            }); })];
                                    case 1:
                                        outcome = _s.sent();
                                        if (!(outcome.kind === 'notFound')) return [3 /*break*/, 2];
                                        out.notFound.push(sid);
                                        return [3 /*break*/, 5];
                                    case 2:
                                        if (!(outcome.kind === 'skipped')) return [3 /*break*/, 3];
                                        out.skipped.push({ id: sid, reason: outcome.reason });
                                        return [3 /*break*/, 5];
                                    case 3: return [4 /*yield*/, (0, software_ts_1.assignSuggestionInvoices)(ctx.store, businessId, sid, { key: outcome.key, name: outcome.name }, at)];
                                    case 4:
                                        assigned = _s.sent();
                                        out.created.push({ id: sid, supplierKey: outcome.key, existing: outcome.existing, assigned: assigned });
                                        _s.label = 5;
                                    case 5: return [2 /*return*/];
                                }
                            });
                        };
                        _e = 0, _f = ids.entries();
                        _r.label = 2;
                    case 2:
                        if (!(_e < _f.length)) return [3 /*break*/, 5];
                        _g = _f[_e], i = _g[0], sid = _g[1];
                        return [5 /*yield**/, _loop_1(i, sid)];
                    case 3:
                        _r.sent();
                        _r.label = 4;
                    case 4:
                        _e++;
                        return [3 /*break*/, 2];
                    case 5: return [2 /*return*/, out];
                }
            });
        });
    },
    activity: function (_input, r) { return ({
        targetIds: r.created.flatMap(function (c) { return [c.id, c.supplierKey]; }),
        summary: "".concat(r.created.length, " supplier(s) from suggestions (").concat(r.created.filter(function (c) { return c.existing; }).length, " existing), ") +
            "".concat(r.created.reduce(function (n, c) { return n + c.assigned; }, 0), " invoice(s) assigned; ").concat(r.needsContact.length, " need a contact, ") +
            "".concat(r.notFound.length, " not found, ").concat(r.skipped.length, " skipped"),
    }); },
});
