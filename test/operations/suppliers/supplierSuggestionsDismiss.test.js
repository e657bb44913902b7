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
var h;
(0, node_test_1.before)(function () { return __awaiter(void 0, void 0, void 0, function () { return __generator(this, function (_a) {
    switch (_a.label) {
        case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)()];
        case 1: return [2 /*return*/, (h = _a.sent())];
    }
}); }); });
(0, node_test_1.after)(function () { return h.close(); });
var status = function (id_1) {
    var args_1 = [];
    for (var _i = 1; _i < arguments.length; _i++) {
        args_1[_i - 1] = arguments[_i];
    }
    return __awaiter(void 0, __spreadArray([id_1], args_1, true), void 0, function (id, b) {
        var _a;
        if (b === void 0) { b = h.owner.businessId; }
        return __generator(this, function (_b) {
            switch (_b.label) {
                case 0: return [4 /*yield*/, h.app.services.store.get((0, issuers_ts_1.suggestionsPath)(b, id))];
                case 1: return [2 /*return*/, ((_a = (_b.sent())) === null || _a === void 0 ? void 0 : _a.data).status];
            }
        });
    });
};
(0, node_test_1.test)('dismissed suggestions leave the list; their invoices are untouched; dismissing again is harmless', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, store, a, keep, _a, _b, _c, _d, _e, _f, _g, _h, _j, _k;
    return __generator(this, function (_l) {
        switch (_l.label) {
            case 0:
                b = h.owner.businessId;
                store = h.app.services.store;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store, b, { name: 'Hide Me', phone: '0541234000' }, { count: 2 })];
            case 1:
                a = _l.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store, b, { name: 'Keep Me', phone: '0541234001' })];
            case 2:
                keep = _l.sent();
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('supplierSuggestionsDismiss', { ids: [a.id] })];
            case 3:
                _b.apply(_a, [_l.sent(), { dismissed: [a.id], notFound: [], skipped: [] }]);
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, status(a.id)];
            case 4:
                _d.apply(_c, [_l.sent(), 'dismissed']);
                _f = (_e = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('supplierSuggestionsList')];
            case 5:
                _f.apply(_e, [(_l.sent()).items.map(function (s) { return s.id; }), [keep.id]]);
                _h = (_g = strict_1.default).ok;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store, b, a.docIds)];
            case 6:
                _h.apply(_g, [(_l.sent()).every(function (d) { return d.suggestionId === a.id && d.supplierKey === null; })]);
                _k = (_j = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('supplierSuggestionsDismiss', { ids: [a.id, a.id] })];
            case 7:
                _k.apply(_j, [_l.sent(), { dismissed: [a.id], notFound: [], skipped: [] }]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('unknown ids and ids of another business are reported in notFound and change nothing', function () { return __awaiter(void 0, void 0, void 0, function () {
    var other, theirs, mine, r, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0: return [4 /*yield*/, h.newBusiness('Other Co')];
            case 1:
                other = _c.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(h.app.services.store, other.businessId, { name: 'Theirs', phone: '0541234002' })];
            case 2:
                theirs = _c.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(h.app.services.store, h.owner.businessId, { name: 'Mine', phone: '0541234003' })];
            case 3:
                mine = _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsDismiss', { ids: ['nope', theirs.id, mine.id] })];
            case 4:
                r = _c.sent();
                strict_1.default.deepEqual(r, { dismissed: [mine.id], notFound: ['nope', theirs.id], skipped: [] });
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, status(theirs.id, other.businessId)];
            case 5:
                _b.apply(_a, [_c.sent(), 'open']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('suggestions already made suppliers or moved to software are skipped with the reason', function () { return __awaiter(void 0, void 0, void 0, function () {
    var store, made, sw, r, _a, _b, _c, _d;
    return __generator(this, function (_e) {
        switch (_e.label) {
            case 0:
                store = h.app.services.store;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store, h.owner.businessId, { name: 'Made', phone: '0541234004' })];
            case 1:
                made = _e.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store, h.owner.businessId, { name: 'Tool', email: 'billing@tool.example' })];
            case 2:
                sw = _e.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [made.id] })];
            case 3:
                _e.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: sw.id })];
            case 4:
                _e.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsDismiss', { ids: [made.id, sw.id] })];
            case 5:
                r = _e.sent();
                strict_1.default.deepEqual(r.dismissed, []);
                strict_1.default.deepEqual(r.skipped, [
                    { id: made.id, reason: 'it is already supplier +972541234004' },
                    { id: sw.id, reason: 'it is in the software list' },
                ]);
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, status(made.id)];
            case 6:
                _b.apply(_a, [_e.sent(), 'created']);
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, status(sw.id)];
            case 7:
                _d.apply(_c, [_e.sent(), 'software']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('ids are required, and writes one activity row', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, row;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionsDismiss', {}), { code: 'invalid-argument', message: /^ids: / })];
            case 1:
                _a.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionsDismiss', { ids: Array(101).fill('x') }), { code: 'invalid-argument', message: /^ids: / })];
            case 2:
                _a.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(h.app.services.store, h.owner.businessId, { name: 'Logged', phone: '0541234005' })];
            case 3:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsDismiss', { ids: [s.id] })];
            case 4:
                _a.sent();
                return [4 /*yield*/, h.call('listActivity')];
            case 5:
                row = (_a.sent()).items.find(function (x) { return x.operation === 'supplierSuggestionsDismiss'; });
                strict_1.default.deepEqual(row.targetIds, [s.id]);
                strict_1.default.equal(row.summary, '1 suggestion(s) dismissed; 0 not found, 0 skipped');
                return [2 /*return*/];
        }
    });
}); });
