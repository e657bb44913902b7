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
var node_test_1 = require("node:test");
var strict_1 = require("node:assert/strict");
var harness_ts_1 = require("../../harness.ts");
var fixtures_test_ts_1 = require("./helpers.ts");
var issuers_ts_1 = require("../../../functions/src/domain/issuers.ts");
var vendorKeys_ts_1 = require("../../../functions/src/domain/vendorKeys.ts");
var ai = (0, fixtures_test_ts_1.scriptedAi)(['Hosting Co', 'Print Shop']);
var h;
(0, node_test_1.before)(function () { return __awaiter(void 0, void 0, void 0, function () { return __generator(this, function (_a) {
    switch (_a.label) {
        case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)({ overrides: { ai: ai } })];
        case 1: return [2 /*return*/, (h = _a.sent())];
    }
}); }); });
(0, node_test_1.after)(function () { return h.close(); });
var store = function () { return h.app.services.store; };
var suggestion = function (id) { return __awaiter(void 0, void 0, void 0, function () { var _a; return __generator(this, function (_b) {
    switch (_b.label) {
        case 0: return [4 /*yield*/, store().get((0, issuers_ts_1.suggestionsPath)(h.owner.businessId, id))];
        case 1: return [2 /*return*/, (_a = (_b.sent())) === null || _a === void 0 ? void 0 : _a.data];
    }
}); }); };
(0, node_test_1.test)('the tool becomes an open suggestion of the same issuer with all its invoices; the software record is deleted', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, s, row, _a, _b, _c, _i, _d, d, _e, _f, _g, _h, _j, _k;
    return __generator(this, function (_l) {
        switch (_l.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Hosting Co', vatId: '527272727', phone: '03-5553333' }, { count: 3 })];
            case 1:
                s = _l.sent();
                return [4 /*yield*/, h.call('softwareSync')];
            case 2:
                _l.sent();
                return [4 /*yield*/, h.call('softwareUpdate', { id: s.id, name: 'Hosting Company' })];
            case 3:
                _l.sent();
                return [4 /*yield*/, h.call('softwareToSupplier', { id: s.id })];
            case 4:
                row = _l.sent();
                strict_1.default.deepEqual(row, { id: s.id, name: 'Hosting Company', phone: '03-5553333', email: null, vatId: '527272727', vendorKey: 'vat:527272727', status: 'open', docCount: 3 });
                _b = (_a = strict_1.default).deepEqual;
                _c = [[]];
                return [4 /*yield*/, suggestion(s.id)];
            case 5:
                _b.apply(_a, [__spreadArray.apply(void 0, _c.concat([(_l.sent()).docIds, true])).sort(), __spreadArray([], s.docIds, true).sort()]);
                _i = 0;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, s.docIds)];
            case 6:
                _d = _l.sent();
                _l.label = 7;
            case 7:
                if (!(_i < _d.length)) return [3 /*break*/, 9];
                d = _d[_i];
                strict_1.default.deepEqual([d.softwareId, d.suggestionId], [null, s.id]);
                _l.label = 8;
            case 8:
                _i++;
                return [3 /*break*/, 7];
            case 9:
                _f = (_e = strict_1.default).equal;
                return [4 /*yield*/, store().get((0, issuers_ts_1.softwarePath)(b, s.id))];
            case 10:
                _f.apply(_e, [_l.sent(), null]);
                _h = (_g = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareList')];
            case 11:
                _h.apply(_g, [(_l.sent()).items, []]);
                _k = (_j = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('supplierSuggestionsList')];
            case 12:
                _k.apply(_j, [(_l.sent()).items.map(function (x) { return [x.id, x.docCount]; }), [[s.id, 3]]]);
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareToSupplier', { id: s.id }), { code: 'not-found', message: "software ".concat(s.id, " not found") })];
            case 13:
                _l.sent();
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('softwareSync, even forced, does not move the issuer back', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, _a, _b, _c, _d;
    return __generator(this, function (_e) {
        switch (_e.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Print Shop', email: 'shop@print.example' }, { count: 1 })];
            case 1:
                s = _e.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, h.call('softwareSync')];
            case 2:
                _b.apply(_a, [(_e.sent()).software, 1]);
                return [4 /*yield*/, h.call('softwareToSupplier', { id: s.id })];
            case 3:
                _e.sent();
                ai.calls.length = 0;
                return [4 /*yield*/, h.call('softwareSync', { force: true })];
            case 4:
                _e.sent();
                strict_1.default.ok(ai.calls.flat().every(function (i) { return i.key !== s.vendorKey; }));
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, suggestion(s.id)];
            case 5:
                _d.apply(_c, [(_e.sent()).status, 'open']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('a tool that never was a suggestion gets one built from an invoice reading', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, r, id, sw, doc, row, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0:
                b = h.owner.businessId;
                r = (0, fixtures_test_ts_1.reading)({ name: 'Cloud Seats', email: 'Billing@Seats.example', phone: '+972 3 555 4444' }, ['Seats']);
                id = (0, issuers_ts_1.issuerId)((0, vendorKeys_ts_1.vendorKeyOf)(r));
                sw = { id: id, vendorKey: (0, vendorKeys_ts_1.vendorKeyOf)(r), name: 'Seats', hidden: true, cadence: 'monthly', docIds: [], createdAt: 'x', updatedAt: 'x' };
                return [4 /*yield*/, store().set((0, issuers_ts_1.softwarePath)(b, id), __assign({}, sw))];
            case 1:
                _c.sent();
                doc = (0, fixtures_test_ts_1.invoiceDoc)(b, r, { softwareId: id });
                return [4 /*yield*/, (0, fixtures_test_ts_1.putInvoices)(store(), [doc])];
            case 2:
                _c.sent();
                return [4 /*yield*/, h.call('softwareToSupplier', { id: id })];
            case 3:
                row = _c.sent();
                strict_1.default.deepEqual(row, { id: id, name: 'Seats', phone: '+972 3 555 4444', email: 'billing@seats.example', vatId: null, vendorKey: 'email:billing@seats.example', status: 'open', docCount: 1 });
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, suggestion(id)];
            case 4:
                _b.apply(_a, [(_c.sent()).docIds, [doc.docId]]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('ids of another business and unknown ids are not-found', function () { return __awaiter(void 0, void 0, void 0, function () {
    var other, s, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0: return [4 /*yield*/, h.newBusiness('Other Co')];
            case 1:
                other = _c.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), other.businessId, { name: 'Theirs', email: 'x@theirs.example' })];
            case 2:
                s = _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id }, other)];
            case 3:
                _c.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareToSupplier', { id: s.id }), { code: 'not-found' })];
            case 4:
                _c.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareToSupplier', { id: 'nope' }), { code: 'not-found' })];
            case 5:
                _c.sent();
                _b = (_a = strict_1.default).ok;
                return [4 /*yield*/, store().get((0, issuers_ts_1.softwarePath)(other.businessId, s.id))];
            case 6:
                _b.apply(_a, [_c.sent()]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('writes one activity row', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, row;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Logged Tool', email: 'logged@tool.example' }, { count: 2 })];
            case 1:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id })];
            case 2:
                _a.sent();
                return [4 /*yield*/, h.call('softwareToSupplier', { id: s.id })];
            case 3:
                _a.sent();
                return [4 /*yield*/, h.call('listActivity')];
            case 4:
                row = (_a.sent()).items.find(function (x) { return x.operation === 'softwareToSupplier'; });
                strict_1.default.deepEqual(row.targetIds, [s.id]);
                strict_1.default.equal(row.summary, 'software moved to the supplier suggestions with 2 invoice(s)');
                return [2 /*return*/];
        }
    });
}); });
