"use strict";
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
var __rest = (this && this.__rest) || function (s, e) {
    var t = {};
    for (var p in s) if (Object.prototype.hasOwnProperty.call(s, p) && e.indexOf(p) < 0)
        t[p] = s[p];
    if (s != null && typeof Object.getOwnPropertySymbols === "function")
        for (var i = 0, p = Object.getOwnPropertySymbols(s); i < p.length; i++) {
            if (e.indexOf(p[i]) < 0 && Object.prototype.propertyIsEnumerable.call(s, p[i]))
                t[p[i]] = s[p[i]];
        }
    return t;
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
var node_test_1 = require("node:test");
var strict_1 = require("node:assert/strict");
var harness_ts_1 = require("../../harness.ts");
var fixtures_test_ts_1 = require("./helpers.ts");
var issuers_ts_1 = require("../../../functions/src/domain/issuers.ts");
var software_ts_1 = require("../../../functions/src/domain/software.ts");
var softwareSync_ts_1 = require("../../../functions/src/operations/software/softwareSync.ts");
var ai = (0, fixtures_test_ts_1.scriptedAi)(['Zoom', 'GitHub']);
var h;
(0, node_test_1.before)(function () { return __awaiter(void 0, void 0, void 0, function () { return __generator(this, function (_a) {
    switch (_a.label) {
        case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)({ overrides: { ai: ai } })];
        case 1: return [2 /*return*/, (h = _a.sent())];
    }
}); }); });
(0, node_test_1.after)(function () { return h.close(); });
var store = function () { return h.app.services.store; };
var sentKeys = function () { return ai.calls.flat().map(function (i) { return i.key; }); };
var status = function (u, id) { return __awaiter(void 0, void 0, void 0, function () { var _a; return __generator(this, function (_b) {
    switch (_b.label) {
        case 0: return [4 /*yield*/, store().get((0, issuers_ts_1.suggestionsPath)(u.businessId, id))];
        case 1: return [2 /*return*/, ((_a = (_b.sent())) === null || _a === void 0 ? void 0 : _a.data).status];
    }
}); }); };
var decision = function (u, id) { return __awaiter(void 0, void 0, void 0, function () { var _a; return __generator(this, function (_b) {
    switch (_b.label) {
        case 0: return [4 /*yield*/, store().get((0, software_ts_1.issuerClassesPath)(u.businessId, id))];
        case 1: return [2 /*return*/, (_a = (_b.sent())) === null || _a === void 0 ? void 0 : _a.data];
    }
}); }); };
var defaultReply = ai.reply;
/** A business of its own for each test, and the fake AI back to its script. */
var fresh = function () { return __awaiter(void 0, void 0, void 0, function () {
    return __generator(this, function (_a) {
        ai.calls.length = 0;
        ai.softwareNames = new Set(['Zoom', 'GitHub']);
        ai.reply = defaultReply;
        return [2 /*return*/, h.newBusiness()];
    });
}); };
(0, node_test_1.test)('without an AI key it is failed-precondition "AI is not configured" and writes nothing', function () { return __awaiter(void 0, void 0, void 0, function () {
    var off, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)({ overrides: { ai: (0, fixtures_test_ts_1.scriptedAi)([], false) } })];
            case 1:
                off = _c.sent();
                _c.label = 2;
            case 2:
                _c.trys.push([2, , 6, 8]);
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(off.app.services.store, off.owner.businessId, { name: 'Zoom', email: 'billing@zoom.example' })];
            case 3:
                _c.sent();
                return [4 /*yield*/, strict_1.default.rejects(off.call('softwareSync'), { code: 'failed-precondition', message: 'AI is not configured' })];
            case 4:
                _c.sent();
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, off.app.services.store.query({ collection: (0, software_ts_1.issuerClassesPath)(off.owner.businessId) })];
            case 5:
                _b.apply(_a, [_c.sent(), []]);
                return [3 /*break*/, 8];
            case 6: return [4 /*yield*/, off.close()];
            case 7:
                _c.sent();
                return [7 /*endfinally*/];
            case 8: return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('classifies open suggestions and unassigned issuers: software moves with its invoices, suppliers stay suggestions', function () { return __awaiter(void 0, void 0, void 0, function () {
    var u, b, zoom, plumber, github, dismissed, _a, _b, tools, _c, _d, _i, _e, d, _f, _g, _h, _j, _k, _l, _m, classifiedAt, plumberDecision, _o, _p;
    var _q;
    return __generator(this, function (_r) {
        switch (_r.label) {
            case 0: return [4 /*yield*/, fresh()];
            case 1:
                u = _r.sent();
                b = u.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Zoom', email: 'billing@zoom.example' }, { count: 2, lineItems: ['Pro plan', 'Extra seat'] })];
            case 2:
                zoom = _r.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Moshe Plumbing', phone: '0529876543' })];
            case 3:
                plumber = _r.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'GitHub', vatId: '528282828' }, { count: 2, suggestion: false, lineItems: ['Team'] })];
            case 4:
                github = _r.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Old Vendor', vatId: '529292929' })];
            case 5:
                dismissed = _r.sent();
                return [4 /*yield*/, store().update((0, issuers_ts_1.suggestionsPath)(b, dismissed.id), { status: 'dismissed' })];
            case 6:
                _r.sent();
                // Not candidates: invoices with a supplier, invoices of a tool, unread invoices.
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Has Supplier', phone: '0541111111' }, { suggestion: false, over: { supplierKey: '+972541111111', supplierBy: 'hand' } })];
            case 7:
                // Not candidates: invoices with a supplier, invoices of a tool, unread invoices.
                _r.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Zoom Clone', vatId: '530303030' }, { suggestion: false, over: { softwareId: 'elsewhere' } })];
            case 8:
                _r.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.putInvoices)(store(), [(0, fixtures_test_ts_1.invoiceDoc)(b, null)])];
            case 9:
                _r.sent();
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareSync', {}, u)];
            case 10:
                _b.apply(_a, [_r.sent(), { classified: 4, software: 2, suppliers: 2, remaining: 0 }]);
                strict_1.default.equal(ai.calls.length, 1);
                strict_1.default.deepEqual(ai.calls[0], [
                    { key: 'email:billing@zoom.example', name: 'Zoom', lineItems: ['Pro plan', 'Extra seat'] },
                    { key: 'phone:+972529876543', name: 'Moshe Plumbing', lineItems: [] },
                    { key: 'vat:528282828', name: 'GitHub', lineItems: ['Team'] },
                    { key: 'vat:529292929', name: 'Old Vendor', lineItems: [] },
                ]);
                return [4 /*yield*/, h.call('softwareList', {}, u)];
            case 11:
                tools = (_r.sent()).items;
                strict_1.default.deepEqual(tools.map(function (t) { return [t.name, t.hidden, t.cadence, t.docCount]; }), [['GitHub', false, 'auto', 2], ['Zoom', false, 'auto', 2]]);
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, status(u, zoom.id)];
            case 12:
                _d.apply(_c, [_r.sent(), 'software']);
                _i = 0;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, __spreadArray(__spreadArray([], zoom.docIds, true), github.docIds, true))];
            case 13:
                _e = _r.sent();
                _r.label = 14;
            case 14:
                if (!(_i < _e.length)) return [3 /*break*/, 16];
                d = _e[_i];
                strict_1.default.equal(d.softwareId, d.vendorKey === zoom.vendorKey ? zoom.id : github.id);
                _r.label = 15;
            case 15:
                _i++;
                return [3 /*break*/, 14];
            case 16:
                _g = (_f = strict_1.default).ok;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, zoom.docIds)];
            case 17:
                _g.apply(_f, [(_r.sent()).every(function (d) { return d.suggestionId === null; })]);
                _j = (_h = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('supplierSuggestionsList', {}, u)];
            case 18:
                _j.apply(_h, [(_r.sent()).items.map(function (s) { return s.id; }), [plumber.id]]);
                _l = (_k = strict_1.default).equal;
                return [4 /*yield*/, status(u, dismissed.id)];
            case 19:
                _l.apply(_k, [_r.sent(), 'dismissed']);
                return [4 /*yield*/, decision(u, plumber.id)];
            case 20:
                _m = (_r.sent()), classifiedAt = _m.classifiedAt, plumberDecision = __rest(_m, ["classifiedAt"]);
                strict_1.default.deepEqual(plumberDecision, { vendorKey: plumber.vendorKey, class: 'supplier', by: 'ai', generation: 0 });
                strict_1.default.ok(classifiedAt);
                _p = (_o = strict_1.default).equal;
                return [4 /*yield*/, decision(u, zoom.id)];
            case 21:
                _p.apply(_o, [(_q = (_r.sent())) === null || _q === void 0 ? void 0 : _q.class, 'software']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('without force decided issuers are not sent again; with nothing new there is no AI call and no quota charge', function () { return __awaiter(void 0, void 0, void 0, function () {
    var u, quota, _a, _b, _c, _d, _e, _f, later, _g, _h, _j, _k;
    return __generator(this, function (_l) {
        switch (_l.label) {
            case 0: return [4 /*yield*/, fresh()];
            case 1:
                u = _l.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Moshe Plumbing', phone: '0529876543' })];
            case 2:
                _l.sent();
                return [4 /*yield*/, h.call('softwareSync', {}, u)];
            case 3:
                _l.sent();
                quota = function () { return __awaiter(void 0, void 0, void 0, function () { var _a; return __generator(this, function (_b) {
                    switch (_b.label) {
                        case 0: return [4 /*yield*/, store().query({ collection: "businesses/".concat(u.businessId, "/quotas") })];
                        case 1: return [2 /*return*/, (_a = (_b.sent())[0]) === null || _a === void 0 ? void 0 : _a.data.used];
                    }
                }); }); };
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, quota()];
            case 4:
                _b.apply(_a, [_l.sent(), 1]);
                _d = (_c = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareSync', {}, u)];
            case 5:
                _d.apply(_c, [_l.sent(), { classified: 0, software: 0, suppliers: 0, remaining: 0 }]);
                strict_1.default.equal(ai.calls.length, 1);
                _f = (_e = strict_1.default).equal;
                return [4 /*yield*/, quota()];
            case 6:
                _f.apply(_e, [_l.sent(), 1]);
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Zoom', email: 'billing@zoom.example' })];
            case 7:
                later = _l.sent();
                _h = (_g = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareSync', {}, u)];
            case 8:
                _h.apply(_g, [_l.sent(), { classified: 1, software: 1, suppliers: 0, remaining: 0 }]);
                strict_1.default.deepEqual(ai.calls[1].map(function (i) { return i.key; }), [later.vendorKey]);
                _k = (_j = strict_1.default).equal;
                return [4 /*yield*/, quota()];
            case 9:
                _k.apply(_j, [_l.sent(), 2]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)("bounded work: ".concat(softwareSync_ts_1.SOFTWARE_SYNC_BATCH, " issuers per call; forced runs re-send AI decisions (never hand ones) and converge"), function () { return __awaiter(void 0, void 0, void 0, function () {
    var u, total, seeded, i, _a, _b, hand, loop, _c, _d, _e, _f, _g, _h, _j, _k, _l, _m, again;
    var _o;
    return __generator(this, function (_p) {
        switch (_p.label) {
            case 0: return [4 /*yield*/, fresh()];
            case 1:
                u = _p.sent();
                total = softwareSync_ts_1.SOFTWARE_SYNC_BATCH + 10;
                seeded = [];
                i = 0;
                _p.label = 2;
            case 2:
                if (!(i < total)) return [3 /*break*/, 5];
                _b = (_a = seeded).push;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: "Vendor ".concat(i), vatId: "5".concat(String(i).padStart(8, '0')) })];
            case 3:
                _b.apply(_a, [_p.sent()]);
                _p.label = 4;
            case 4:
                i++;
                return [3 /*break*/, 2];
            case 5: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Hand Picked', email: 'hand@picked.example' })];
            case 6:
                hand = _p.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: hand.id }, u)];
            case 7:
                _p.sent();
                return [4 /*yield*/, h.call('softwareToSupplier', { id: hand.id }, u)];
            case 8:
                _p.sent(); // the user's call: it is a supplier
                loop = function (force) { return __awaiter(void 0, void 0, void 0, function () {
                    var results, _a, _b;
                    return __generator(this, function (_c) {
                        switch (_c.label) {
                            case 0:
                                results = [];
                                _c.label = 1;
                            case 1:
                                _b = (_a = results).push;
                                return [4 /*yield*/, h.call('softwareSync', { force: force }, u)];
                            case 2:
                                _b.apply(_a, [_c.sent()]);
                                _c.label = 3;
                            case 3:
                                if (results.at(-1).remaining > 0 && results.length < 10) return [3 /*break*/, 1];
                                _c.label = 4;
                            case 4: return [2 /*return*/, results];
                        }
                    });
                }); };
                _d = (_c = strict_1.default).deepEqual;
                return [4 /*yield*/, loop(false)];
            case 9:
                _d.apply(_c, [(_p.sent()).map(function (r) { return [r.classified, r.remaining]; }), [[softwareSync_ts_1.SOFTWARE_SYNC_BATCH, 10], [10, 0]]]);
                strict_1.default.equal(new Set(sentKeys()).size, total);
                strict_1.default.equal(sentKeys().length, total);
                ai.calls.length = 0;
                ai.softwareNames.add('Vendor 7'); // the AI changes its mind on a re-run
                _f = (_e = strict_1.default).deepEqual;
                return [4 /*yield*/, loop(true)];
            case 10:
                _f.apply(_e, [(_p.sent()).map(function (r) { return [r.classified, r.remaining]; }), [[softwareSync_ts_1.SOFTWARE_SYNC_BATCH, 10], [10, 0]]]);
                strict_1.default.equal(sentKeys().length, total, 'each issuer exactly once in the forced run');
                strict_1.default.ok(!sentKeys().includes(hand.vendorKey));
                _h = (_g = strict_1.default).equal;
                return [4 /*yield*/, status(u, seeded[7].id)];
            case 11:
                _h.apply(_g, [_p.sent(), 'software']);
                _k = (_j = strict_1.default).equal;
                return [4 /*yield*/, status(u, hand.id)];
            case 12:
                _k.apply(_j, [_p.sent(), 'open']);
                _m = (_l = strict_1.default).equal;
                return [4 /*yield*/, decision(u, seeded[0].id)];
            case 13:
                _m.apply(_l, [(_o = (_p.sent())) === null || _o === void 0 ? void 0 : _o.generation, 1]);
                ai.calls.length = 0;
                return [4 /*yield*/, h.call('softwareSync', { force: true }, u)];
            case 14:
                again = _p.sent();
                strict_1.default.deepEqual([again.classified, again.remaining], [softwareSync_ts_1.SOFTWARE_SYNC_BATCH, total - 1 - softwareSync_ts_1.SOFTWARE_SYNC_BATCH], 'a finished forced run lets force start another');
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('an AI failure is unavailable with the reason and changes nothing; the next call does the work', function () { return __awaiter(void 0, void 0, void 0, function () {
    var u, zoom, ok, _a, _b, _c, _d, _e, _f, _g, _h;
    return __generator(this, function (_j) {
        switch (_j.label) {
            case 0: return [4 /*yield*/, fresh()];
            case 1:
                u = _j.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Zoom', email: 'billing@zoom.example' })];
            case 2:
                zoom = _j.sent();
                ok = ai.reply;
                ai.reply = function () { return ({ ok: false, reason: 'AI reply was cut off (MAX_TOKENS)' }); };
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareSync', {}, u), { code: 'unavailable', message: /AI reply was cut off \(MAX_TOKENS\)\. Nothing was changed/ })];
            case 3:
                _j.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareSync', { force: true }, u), { code: 'unavailable' })];
            case 4:
                _j.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, store().get((0, issuers_ts_1.softwarePath)(u.businessId, zoom.id))];
            case 5:
                _b.apply(_a, [_j.sent(), null]);
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, decision(u, zoom.id)];
            case 6:
                _d.apply(_c, [_j.sent(), undefined]);
                _f = (_e = strict_1.default).equal;
                return [4 /*yield*/, status(u, zoom.id)];
            case 7:
                _f.apply(_e, [_j.sent(), 'open']);
                ai.reply = ok;
                _h = (_g = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareSync', {}, u)];
            case 8:
                _h.apply(_g, [_j.sent(), { classified: 1, software: 1, suppliers: 0, remaining: 0 }]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('an issuer the AI leaves out counts as a supplier, so calling again converges', function () { return __awaiter(void 0, void 0, void 0, function () {
    var u, a, b, _a, _b, _c, _d, _e, _f, _g, _h;
    var _j;
    return __generator(this, function (_k) {
        switch (_k.label) {
            case 0: return [4 /*yield*/, fresh()];
            case 1:
                u = _k.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Zoom', email: 'billing@zoom.example' })];
            case 2:
                a = _k.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Skipped By AI', phone: '0520000001' })];
            case 3:
                b = _k.sent();
                ai.reply = function (issuers) {
                    var _a;
                    return ({ ok: true, value: (_a = {}, _a[issuers[0].key] = 'software', _a) });
                };
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareSync', {}, u)];
            case 4:
                _b.apply(_a, [_k.sent(), { classified: 2, software: 1, suppliers: 1, remaining: 0 }]);
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, decision(u, b.id)];
            case 5:
                _d.apply(_c, [(_j = (_k.sent())) === null || _j === void 0 ? void 0 : _j.class, 'supplier']);
                _f = (_e = strict_1.default).equal;
                return [4 /*yield*/, status(u, a.id)];
            case 6:
                _f.apply(_e, [_k.sent(), 'software']);
                _h = (_g = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareSync', {}, u)];
            case 7:
                _h.apply(_g, [_k.sent(), { classified: 0, software: 0, suppliers: 0, remaining: 0 }]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('an issuer the user already made a supplier is not sent, even when a later invoice of it is unassigned', function () { return __awaiter(void 0, void 0, void 0, function () {
    var u, s, _a, _b, _c, _d, _e, _f, _g;
    var _h;
    var _j, _k;
    return __generator(this, function (_l) {
        switch (_l.label) {
            case 0: return [4 /*yield*/, fresh()];
            case 1:
                u = _l.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Zoom', vatId: '531313131' })];
            case 2:
                s = _l.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id], contact: (_h = {}, _h[s.id] = { email: 'zoom@example.com' }, _h) }, u)];
            case 3:
                _l.sent();
                // A later invoice of the issuer that the supplier match missed: it joins the (created) suggestion, unassigned.
                return [4 /*yield*/, (0, fixtures_test_ts_1.putInvoices)(store(), [(0, fixtures_test_ts_1.invoiceDoc)(u.businessId, (0, fixtures_test_ts_1.reading)({ name: 'Zoom', vatId: '531313131' }), { suggestionId: s.id })])];
            case 4:
                // A later invoice of the issuer that the supplier match missed: it joins the (created) suggestion, unassigned.
                _l.sent();
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareSync', { force: true }, u)];
            case 5:
                _b.apply(_a, [_l.sent(), { classified: 0, software: 0, suppliers: 0, remaining: 0 }]);
                strict_1.default.equal(ai.calls.length, 0);
                _d = (_c = strict_1.default).deepEqual;
                return [4 /*yield*/, decision(u, s.id)];
            case 6:
                _e = [(_j = (_l.sent())) === null || _j === void 0 ? void 0 : _j.class];
                return [4 /*yield*/, decision(u, s.id)];
            case 7:
                _d.apply(_c, [_e.concat([(_k = (_l.sent())) === null || _k === void 0 ? void 0 : _k.by]), ['supplier', 'hand']]);
                _g = (_f = strict_1.default).equal;
                return [4 /*yield*/, status(u, s.id)];
            case 8:
                _g.apply(_f, [_l.sent(), 'created']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('only the caller business is looked at, and one activity row is written', function () { return __awaiter(void 0, void 0, void 0, function () {
    var u, other, mine, row;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, fresh()];
            case 1:
                u = _a.sent();
                return [4 /*yield*/, fresh()];
            case 2:
                other = _a.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), other.businessId, { name: 'Zoom', email: 'billing@zoom.example' })];
            case 3:
                _a.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), u.businessId, { name: 'Mine Only', phone: '0520000002' })];
            case 4:
                mine = _a.sent();
                return [4 /*yield*/, h.call('softwareSync', { force: true }, u)];
            case 5:
                _a.sent();
                strict_1.default.deepEqual(sentKeys(), [mine.vendorKey]);
                return [4 /*yield*/, h.call('listActivity', {}, u)];
            case 6:
                row = (_a.sent()).items.find(function (x) { return x.operation === 'softwareSync'; });
                strict_1.default.equal(row.summary, 'software sync (forced): 1 issuer(s) classified, 0 software, 1 supplier(s), 0 remaining');
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('a used-up AI quota is 429 resource-exhausted and changes nothing', function () { return __awaiter(void 0, void 0, void 0, function () {
    var q, st, _a, _b, zoom, _c, _d, _e, _f;
    return __generator(this, function (_g) {
        switch (_g.label) {
            case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)({ env: { QUOTA_AI: '1' }, overrides: { ai: (0, fixtures_test_ts_1.scriptedAi)(['Zoom']) } })];
            case 1:
                q = _g.sent();
                _g.label = 2;
            case 2:
                _g.trys.push([2, , 9, 11]);
                st = q.app.services.store;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(st, q.owner.businessId, { name: 'First', phone: '0520000003' })];
            case 3:
                _g.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, q.call('softwareSync')];
            case 4:
                _b.apply(_a, [(_g.sent()).classified, 1]);
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(st, q.owner.businessId, { name: 'Zoom', email: 'billing@zoom.example' })];
            case 5:
                zoom = _g.sent();
                return [4 /*yield*/, strict_1.default.rejects(q.call('softwareSync'), { code: 'resource-exhausted' })];
            case 6:
                _g.sent();
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, st.get((0, issuers_ts_1.softwarePath)(q.owner.businessId, zoom.id))];
            case 7:
                _d.apply(_c, [_g.sent(), null]);
                _f = (_e = strict_1.default).equal;
                return [4 /*yield*/, st.get((0, software_ts_1.issuerClassesPath)(q.owner.businessId, zoom.id))];
            case 8:
                _f.apply(_e, [_g.sent(), null]);
                return [3 /*break*/, 11];
            case 9: return [4 /*yield*/, q.close()];
            case 10:
                _g.sent();
                return [7 /*endfinally*/];
            case 11: return [2 /*return*/];
        }
    });
}); });
