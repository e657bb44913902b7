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
Object.defineProperty(exports, "__esModule", { value: true });
var node_test_1 = require("node:test");
var strict_1 = require("node:assert/strict");
var harness_ts_1 = require("../../harness.ts");
var fixtures_test_ts_1 = require("../software/helpers.ts");
var issuers_ts_1 = require("../../../functions/src/domain/issuers.ts");
var ai = (0, fixtures_test_ts_1.scriptedAi)();
var h;
(0, node_test_1.before)(function () { return __awaiter(void 0, void 0, void 0, function () { return __generator(this, function (_a) {
    switch (_a.label) {
        case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)({ overrides: { ai: ai } })];
        case 1: return [2 /*return*/, (h = _a.sent())];
    }
}); }); });
(0, node_test_1.after)(function () { return h.close(); });
var store = function () { return h.app.services.store; };
(0, node_test_1.test)('the suggestion moves with its invoices: a visible software record with cadence auto, invoices carry softwareId only', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, s, row, _i, _a, d, _b, _c, _d, _e, _f, _g;
    return __generator(this, function (_h) {
        switch (_h.label) {
            case 0:
                b = h.owner.businessId;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), b, { name: 'Canva', email: 'billing@canva.example' }, { count: 3 })];
            case 1:
                s = _h.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id })];
            case 2:
                row = _h.sent();
                strict_1.default.deepEqual(row, { id: s.id, name: 'Canva', vendorKey: 'email:billing@canva.example', hidden: false, cadence: 'auto', docCount: 3 });
                _i = 0;
                return [4 /*yield*/, (0, fixtures_test_ts_1.invoicesOf)(store(), b, s.docIds)];
            case 3:
                _a = _h.sent();
                _h.label = 4;
            case 4:
                if (!(_i < _a.length)) return [3 /*break*/, 6];
                d = _a[_i];
                strict_1.default.deepEqual([d.softwareId, d.suggestionId], [s.id, null]);
                _h.label = 5;
            case 5:
                _i++;
                return [3 /*break*/, 4];
            case 6:
                _c = (_b = strict_1.default).equal;
                return [4 /*yield*/, store().get((0, issuers_ts_1.suggestionsPath)(b, s.id))];
            case 7:
                _c.apply(_b, [(_h.sent()).data.status, 'software']);
                _e = (_d = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('supplierSuggestionsList')];
            case 8:
                _e.apply(_d, [(_h.sent()).items, []]);
                _g = (_f = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareList')];
            case 9:
                _g.apply(_f, [(_h.sent()).items, [row]]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('the choice is kept: softwareSync, even forced, does not send the issuer to the AI', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Figma', vatId: '525252525' }, { count: 1 })];
            case 1:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id })];
            case 2:
                _a.sent();
                ai.calls.length = 0;
                return [4 /*yield*/, h.call('softwareSync', { force: true })];
            case 3:
                _a.sent();
                strict_1.default.ok(ai.calls.flat().every(function (i) { return i.key !== s.vendorKey; }));
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('an existing software record for the issuer keeps its settings; moving twice is harmless', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, again;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Notion', email: 'team@notion.example' }, { count: 2 })];
            case 1:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id })];
            case 2:
                _a.sent();
                return [4 /*yield*/, h.call('softwareUpdate', { id: s.id, hidden: true, cadence: 'yearly', name: 'Notion Team' })];
            case 3:
                _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id })];
            case 4:
                again = _a.sent();
                strict_1.default.deepEqual(again, { id: s.id, name: 'Notion Team', vendorKey: s.vendorKey, hidden: true, cadence: 'yearly', docCount: 2 });
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('a dismissed suggestion can move; one already made a supplier cannot', function () { return __awaiter(void 0, void 0, void 0, function () {
    var dismissed, _a, _b, made, _c, _d;
    return __generator(this, function (_e) {
        switch (_e.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Dropbox', email: 'billing@dropbox.example' })];
            case 1:
                dismissed = _e.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsDismiss', { ids: [dismissed.id] })];
            case 2:
                _e.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: dismissed.id })];
            case 3:
                _b.apply(_a, [(_e.sent()).docCount, 1]);
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Real Supplier', phone: '0547770000' })];
            case 4:
                made = _e.sent();
                return [4 /*yield*/, h.call('supplierSuggestionsCreate', { ids: [made.id] })];
            case 5:
                _e.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionToSoftware', { id: made.id }), { code: 'failed-precondition', message: /already supplier \+972547770000/ })];
            case 6:
                _e.sent();
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, store().get((0, issuers_ts_1.softwarePath)(h.owner.businessId, made.id))];
            case 7:
                _d.apply(_c, [_e.sent(), null]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('unknown ids and ids of another business are not-found and change nothing', function () { return __awaiter(void 0, void 0, void 0, function () {
    var other, theirs, _a, _b, _c, _d;
    return __generator(this, function (_e) {
        switch (_e.label) {
            case 0: return [4 /*yield*/, h.newBusiness('Other Co')];
            case 1:
                other = _e.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), other.businessId, { name: 'Theirs SaaS', email: 'x@theirs.example' })];
            case 2:
                theirs = _e.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionToSoftware', { id: 'nope' }), { code: 'not-found' })];
            case 3:
                _e.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionToSoftware', { id: theirs.id }), { code: 'not-found', message: "suggestion ".concat(theirs.id, " not found") })];
            case 4:
                _e.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, store().get((0, issuers_ts_1.suggestionsPath)(other.businessId, theirs.id))];
            case 5:
                _b.apply(_a, [(_e.sent()).data.status, 'open']);
                _d = (_c = strict_1.default).equal;
                return [4 /*yield*/, store().get((0, issuers_ts_1.softwarePath)(h.owner.businessId, theirs.id))];
            case 6:
                _d.apply(_c, [_e.sent(), null]);
                return [4 /*yield*/, strict_1.default.rejects(h.call('supplierSuggestionToSoftware', {}), { code: 'invalid-argument', message: /^id: / })];
            case 7:
                _e.sent();
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('writes one activity row', function () { return __awaiter(void 0, void 0, void 0, function () {
    var s, row;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store(), h.owner.businessId, { name: 'Miro', email: 'billing@miro.example' })];
            case 1:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id })];
            case 2:
                _a.sent();
                return [4 /*yield*/, h.call('listActivity')];
            case 3:
                row = (_a.sent()).items.find(function (x) { return x.operation === 'supplierSuggestionToSoftware'; });
                strict_1.default.deepEqual(row.targetIds, [s.id]); // the software record shares the suggestion's id
                strict_1.default.equal(row.summary, 'suggestion moved to software Miro with 1 invoice(s)');
                return [2 /*return*/];
        }
    });
}); });
