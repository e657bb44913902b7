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
var fixtures_test_ts_1 = require("../software/helpers.ts");
var issuers_ts_1 = require("../../../functions/src/domain/issuers.ts");
var suppliers_ts_1 = require("../../../functions/src/domain/suppliers.ts");
var h;
(0, node_test_1.before)(function () { return __awaiter(void 0, void 0, void 0, function () { return __generator(this, function (_a) {
    switch (_a.label) {
        case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)()];
        case 1: return [2 /*return*/, (h = _a.sent())];
    }
}); }); });
(0, node_test_1.after)(function () { return h.close(); });
var store = function () { return h.app.services.store; };
var suggestion = function (id_1) {
    var args_1 = [];
    for (var _i = 1; _i < arguments.length; _i++) {
        args_1[_i - 1] = arguments[_i];
    }
    return __awaiter(void 0, __spreadArray([id_1], args_1, true), void 0, function (id, b) {
        var _a;
        if (b === void 0) { b = h.owner.businessId; }
        return __generator(this, function (_b) {
            switch (_b.label) {
                case 0: return [4 /*yield*/, store().get((0, issuers_ts_1.suggestionsPath)(b, id))];
                case 1: return [2 /*return*/, (_a = (_b.sent())) === null || _a === void 0 ? void 0 : _a.data];
            }
        });
    });
};
var supplier = function (key_1) {
    var args_1 = [];
    for (var _i = 1; _i < arguments.length; _i++) {
        args_1[_i - 1] = arguments[_i];
    }
    return __awaiter(void 0, __spreadArray([key_1], args_1, true), void 0, function (key, b) {
        var _a;
        if (b === void 0) { b = h.owner.businessId; }
        return __generator(this, function (_b) {
            switch (_b.label) {
                case 0: return [4 /*yield*/, store().get((0, suppliers_ts_1.suppliersPath)(b, key))];
                case 1: return [2 /*return*/, (_a = (_b.sent())) === null || _a === void 0 ? void 0 : _a.data];
            }
        });
    });
};
(0, node_test_1.test)("a suggestion with a phone becomes a manual supplier keyed by the E.164 phone; its invoices are assigned", function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, s, r, sup, _i, _a, d, sg, _b, _c, _d, _e;
    return __generator(this, function (_f) {
        switch (_f.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Print House', phone: '03-5551234', email: 'Office@PrintHouse.example', vatId: '514141414' }, { count: 3 })];
            case 1:
                s = _f.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id] })];
            case 2:
                r = _f.sent();
                strict_1.default.deepEqual(r, { created: [{ id: s.id, supplierKey: '+97235551234', existing: false, assigned: 3 }], needsContact: [], notFound: [], skipped: [] });
                return [4 /*yield*/, supplier('+97235551234')];
            case 3:
                sup = _f.sent();
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.name, 'Print House');
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.phone, '+97235551234');
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.email, 'office@printhouse.example');
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.kind, 'supplier');
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.manual, true);
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.card.companyId, '514141414');
                _i = 0;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, s.docIds)];
            case 4:
                _a = _f.sent();
                _f.label = 5;
            case 5:
                if (!(_i < _a.length)) return [3 /*break*/, 7];
                d = _a[_i];
                strict_1.default.deepEqual([d.supplierKey, d.supplierName, d.supplierBy, d.suggestionId], ['+97235551234', 'Print House', 'auto', s.id]);
                _f.label = 6;
            case 6:
                _i++;
                return [3 /*break*/, 5];
            case 7: return [4 /*yield*/, suggestion(s.id)];
            case 8:
                sg = _f.sent();
                strict_1.default.equal(sg.status, 'created');
                strict_1.default.equal(sg.supplierKey, '+97235551234');
                _c = (_b = strict_1.default).equal;
                return [4 /*yield*/, h.call('supplierSuggestionsList')];
            case 9:
                _c.apply(_b, [(_f.sent()).items.some(function (x) { return x.id === s.id; }), false]);
                _e = (_d = strict_1.default).ok;
                return [4 /*yield*/, h.call('suppliersList')];
            case 10:
                _e.apply(_d, [(_f.sent()).items.some(function (x) { return x.key === '+97235551234'; })]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('an email-only suggestion is keyed by the lower-cased email; kind freelancer is kept', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, r, _a, _b;
    var _c;
    return __generator(this, function (_d) {
        switch (_d.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Noa Design', email: 'Noa@Design.EXAMPLE' })];
            case 1:
                s = _d.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id], kind: 'freelancer' })];
            case 2:
                r = _d.sent();
                strict_1.default.equal(r.created[0].supplierKey, 'noa@design.example');
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, supplier('noa@design.example')];
            case 3:
                _b.apply(_a, [(_c = (_d.sent())) === null || _c === void 0 ? void 0 : _c.kind, 'freelancer']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('without phone or email a suggestion needs a contact: nothing is created for it, the rest go ahead', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, bare, ok, r, _a, _b, _c, _d, again, sup;
    var _e;
    return __generator(this, function (_f) {
        switch (_f.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Corner Shop', vatId: '518181818' }, { count: 2 })];
            case 1:
                bare = _f.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Fine Supplies', phone: '+972 52 700 0001' })];
            case 2:
                ok = _f.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [bare.id, ok.id] })];
            case 3:
                r = _f.sent();
                strict_1.default.deepEqual(r.needsContact, [bare.id]);
                strict_1.default.deepEqual(r.created.map(function (c) { return c.id; }), [ok.id]);
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, suggestion(bare.id)];
            case 4:
                _b.apply(_a, [(_f.sent()).status, 'open']);
                _d = (_c = strict_1.default).ok;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, bare.docIds)];
            case 5:
                _d.apply(_c, [(_f.sent()).every(function (d) { return d.supplierKey === null; })]);
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [bare.id], contact: (_e = {}, _e[bare.id] = { phone: '054-1231234', email: 'SHOP@corner.example' }, _e) })];
            case 6:
                again = _f.sent();
                strict_1.default.deepEqual(again.created, [{ id: bare.id, supplierKey: '+972541231234', existing: false, assigned: 2 }]);
                return [4 /*yield*/, supplier('+972541231234')];
            case 7:
                sup = _f.sent();
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.email, 'shop@corner.example');
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.card.companyId, '518181818');
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('a contact email alone becomes the key, lower-cased; contact fields win over what the AI read', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, r, moved, m, bad, _a, _b;
    var _c, _d;
    return __generator(this, function (_e) {
        switch (_e.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Old Number Ltd', vatId: '519191919' })];
            case 1:
                s = _e.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id], contact: (_c = {}, _c[s.id] = { email: ' Billing@OldNumber.example ' }, _c) })];
            case 2:
                r = _e.sent();
                strict_1.default.equal(r.created[0].supplierKey, 'billing@oldnumber.example');
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Moved Office', phone: '03-5000000', vatId: '519292929' })];
            case 3:
                moved = _e.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [moved.id], contact: (_d = {}, _d[moved.id] = { phone: '+972 3 600 0000' }, _d) })];
            case 4:
                m = _e.sent();
                strict_1.default.equal(m.created[0].supplierKey, '+97236000000');
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Garbled', phone: '12', email: 'not-an-email' })];
            case 5:
                bad = _e.sent();
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [bad.id] })];
            case 6:
                _b.apply(_a, [(_e.sent()).needsContact, [bad.id], 'unusable contacts read by the AI count as missing']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('an invalid contact is invalid-argument naming contact.<id>.<field>, and nothing is written for any id', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, good, bare, _a, _b, _c, _d;
    var _e, _f;
    return __generator(this, function (_g) {
        switch (_g.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Would Be Created', phone: '0527777777' })];
            case 1:
                good = _g.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'No Contact Yet' })];
            case 2:
                bare = _g.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionsCreate', { ids: [good.id, bare.id], contact: (_e = {}, _e[bare.id] = { phone: '050-12' }, _e) }), { code: 'invalid-argument', message: new RegExp("^contact\\.".concat(bare.id, "\\.phone: \"050-12\" is not a valid phone")) })];
            case 3:
                _g.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionsCreate', { ids: [bare.id], contact: (_f = {}, _f[bare.id] = { email: 'nope' }, _f) }), {
                        code: 'invalid-argument',
                        message: new RegExp("^contact\\.".concat(bare.id, "\\.email: ")),
                    })];
            case 4:
                _g.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionsCreate', { ids: [bare.id], contact: { other: { phone: '0501234567' } } }), {
                        code: 'invalid-argument',
                        message: /^contact\.other: is not one of ids/,
                    })];
            case 5:
                _g.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionsCreate', { ids: [] }), { code: 'invalid-argument', message: /^ids: / })];
            case 6:
                _g.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionsCreate', { ids: [good.id], kind: 'vendor' }), { code: 'invalid-argument', message: /^kind: / })];
            case 7:
                _g.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, suggestion(good.id)];
            case 8:
                _b.apply(_a, [(_g.sent()).status, 'open']);
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, supplier('+972527777777')];
            case 9:
                _d.apply(_c, [_g.sent(), undefined]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('an existing supplier with the key is reused, not refused: invoices get its name, its record is untouched', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, s, r, sup, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, h.call('createSupplier', { name: 'Dana Studio', phone: '050-8888888', kind: 'freelancer' })];
            case 1:
                _c.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'D. Studio Ltd', phone: '+972508888888' }, { count: 2 })];
            case 2:
                s = _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id] })];
            case 3:
                r = _c.sent();
                strict_1.default.deepEqual(r.created, [{ id: s.id, supplierKey: '+972508888888', existing: true, assigned: 2 }]);
                return [4 /*yield*/, supplier('+972508888888')];
            case 4:
                sup = _c.sent();
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.name, 'Dana Studio');
                strict_1.default.equal(sup === null || sup === void 0 ? void 0 : sup.kind, 'freelancer');
                _b = (_a = strict_1.default).ok;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, s.docIds)];
            case 5:
                _b.apply(_a, [(_c.sent()).every(function (d) { return d.supplierName === 'Dana Studio'; })]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('two suggestions with the same contact end as one supplier', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, one, two, r;
    var _a;
    return __generator(this, function (_b) {
        switch (_b.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Twin A', vatId: '520202020', phone: '0539999999' })];
            case 1:
                one = _b.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Twin B', email: 'twin@example.com' })];
            case 2:
                two = _b.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [one.id, two.id], contact: (_a = {}, _a[two.id] = { phone: '053-9999999' }, _a) })];
            case 3:
                r = _b.sent();
                strict_1.default.deepEqual(r.created.map(function (c) { return [c.supplierKey, c.existing]; }), [['+972539999999', false], ['+972539999999', true]]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('invoices assigned by hand keep their supplier', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, s, hand, r, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Mixed', email: 'mixed@example.com' }, { count: 2 })];
            case 1:
                s = _c.sent();
                hand = (0, fixtures_test_ts_1.invoiceDoc)(b, (0, fixtures_test_ts_1.reading)({ name: 'Mixed', email: 'mixed@example.com' }), { suggestionId: s.id, supplierKey: '+972501112222', supplierName: 'Chosen', supplierBy: 'hand' });
                return [4 /*yield*/, (0, fixtures_test_ts_1.putInvoices)(store(), [hand])];
            case 2:
                _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id] })];
            case 3:
                r = _c.sent();
                strict_1.default.equal(r.created[0].assigned, 2);
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, [hand.docId])];
            case 4:
                _b.apply(_a, [(_c.sent())[0].supplierKey, '+972501112222']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('calling again is harmless and assigns invoices that arrived in between', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, s, late, r, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Repeat', phone: '0546666666' })];
            case 1:
                s = _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id] })];
            case 2:
                _c.sent();
                late = (0, fixtures_test_ts_1.invoiceDoc)(b, (0, fixtures_test_ts_1.reading)({ name: 'Repeat', phone: '0546666666' }), { suggestionId: s.id });
                return [4 /*yield*/, (0, fixtures_test_ts_1.putInvoices)(store(), [late])];
            case 3:
                _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id, s.id] })];
            case 4:
                r = _c.sent();
                strict_1.default.deepEqual(r.created, [{ id: s.id, supplierKey: '+972546666666', existing: true, assigned: 1 }]);
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, [late.docId])];
            case 5:
                _b.apply(_a, [(_c.sent())[0].supplierKey, '+972546666666']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('unknown ids and ids of another business are reported in notFound; software suggestions are skipped', function () { return __awaiter(void 0, void 0, void 0, function () {
    var other, theirs, sw, r, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0: return [4 /*yield*/, h.newBusiness('Other Co')];
            case 1:
                other = _c.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), other.businessId, { name: 'Theirs', phone: '0541000000' })];
            case 2:
                theirs = _c.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Some SaaS', email: 'billing@saas.example' })];
            case 3:
                sw = _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: sw.id })];
            case 4:
                _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: ['nope', theirs.id, sw.id] })];
            case 5:
                r = _c.sent();
                strict_1.default.deepEqual(r.notFound, ['nope', theirs.id]);
                strict_1.default.deepEqual(r.skipped.map(function (x) { return x.id; }), [sw.id]);
                strict_1.default.match(r.skipped[0].reason, /software list/);
                strict_1.default.deepEqual(r.created, []);
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, suggestion(theirs.id, other.businessId)];
            case 6:
                _b.apply(_a, [(_c.sent()).status, 'open']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('a dismissed suggestion can still be made a supplier', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Changed Mind', phone: '0542020202' })];
            case 1:
                s = _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsDismiss', { ids: [s.id] })];
            case 2:
                _c.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id] })];
            case 3:
                _b.apply(_a, [(_c.sent()).created.length, 1]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('all invoices of a large suggestion are assigned (chunks under the 500-write limit)', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, r;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Monthly Courier', phone: '0543030303' }, { count: 1100 })];
            case 1:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id] })];
            case 2:
                r = _a.sent();
                strict_1.default.equal(r.created[0].assigned, 1100);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('writes one activity row naming the suggestions and supplier keys', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, items, row;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Logged', email: 'logged@sugg.example' })];
            case 1:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [s.id, 'missing'] })];
            case 2:
                _a.sent();
                return [4 /*yield*/, h.call('listActivity')];
            case 3:
                items = (_a.sent()).items;
                row = items.find(function (x) { return x.operation === 'supplierSuggestionsCreate' && x.targetIds.includes(s.id); });
                strict_1.default.ok(row);
                strict_1.default.deepEqual(row.targetIds, [s.id, 'logged@sugg.example']);
                strict_1.default.match(row.summary, /^1 supplier\(s\) from suggestions \(0 existing\), 1 invoice\(s\) assigned; 0 need a contact, 1 not found/);
                return [2 /*return*/];
        }
    });
}); });
