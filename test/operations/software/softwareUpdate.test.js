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
var fixtures_test_ts_1 = require("./helpers.ts");
var issuers_ts_1 = require("../../../functions/src/domain/issuers.ts");
var h;
var id;
(0, node_test_1.before)(function () { return __awaiter(void 0, void 0, void 0, function () {
    var s;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)()];
            case 1:
                h = _a.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(h.app.services.store, h.owner.businessId, { name: 'Slack', email: 'billing@slack.example' }, { count: 2 })];
            case 2:
                s = _a.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: s.id })];
            case 3:
                id = (_a.sent()).id;
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.after)(function () { return h.close(); });
var record = function () { return __awaiter(void 0, void 0, void 0, function () { return __generator(this, function (_a) {
    switch (_a.label) {
        case 0: return [4 /*yield*/, h.app.services.store.get((0, issuers_ts_1.softwarePath)(h.owner.businessId, id))];
        case 1: return [2 /*return*/, (_a.sent()).data];
    }
}); }); };
(0, node_test_1.test)('changes only the fields sent and returns the tool', function () { return __awaiter(void 0, void 0, void 0, function () {
    var _a, _b, r, _c, _d, _e, shown, _f, _g;
    return __generator(this, function (_h) {
        switch (_h.label) {
            case 0:
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareUpdate', { id: id, cadence: 'yearly' })];
            case 1:
                _b.apply(_a, [_h.sent(), {
                        id: id,
                        name: 'Slack', vendorKey: 'email:billing@slack.example', hidden: false, cadence: 'yearly', docCount: 2,
                    }]);
                return [4 /*yield*/, h.call('softwareUpdate', { id: id, name: '  Slack Pro  ', hidden: true })];
            case 2:
                r = _h.sent();
                strict_1.default.deepEqual([r.name, r.hidden, r.cadence], ['Slack Pro', true, 'yearly']);
                _d = (_c = strict_1.default).deepEqual;
                return [4 /*yield*/, record()];
            case 3:
                _e = [(_h.sent()).name];
                return [4 /*yield*/, record()];
            case 4:
                _d.apply(_c, [_e.concat([(_h.sent()).hidden]), ['Slack Pro', true]]);
                return [4 /*yield*/, h.call('softwareUpdate', { id: id, hidden: false, cadence: 'auto' })];
            case 5:
                shown = _h.sent();
                strict_1.default.deepEqual([shown.name, shown.hidden, shown.cadence], ['Slack Pro', false, 'auto']);
                _g = (_f = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareUpdate', { id: id })];
            case 6:
                _g.apply(_f, [(_h.sent()).name, 'Slack Pro', 'no fields: unchanged']);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('bad values are invalid-argument naming the field', function () { return __awaiter(void 0, void 0, void 0, function () {
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, strict_1.default.rejects(h.call('softwareUpdate', { id: id, cadence: 'weekly' }), { code: 'invalid-argument', message: /^cadence: / })];
            case 1:
                _a.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareUpdate', { id: id, name: '   ' }), { code: 'invalid-argument', message: /^name: / })];
            case 2:
                _a.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareUpdate', { id: id, hidden: 'yes' }), { code: 'invalid-argument', message: /^hidden: / })];
            case 3:
                _a.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareUpdate', { name: 'x' }), { code: 'invalid-argument', message: /^id: / })];
            case 4:
                _a.sent();
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('unknown ids and ids of another business are not-found', function () { return __awaiter(void 0, void 0, void 0, function () {
    var other, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0: return [4 /*yield*/, h.newBusiness('Other Co')];
            case 1:
                other = _c.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareUpdate', { id: 'nope', hidden: true }), { code: 'not-found', message: 'software nope not found' })];
            case 2:
                _c.sent();
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareUpdate', { id: id, hidden: true }, other), { code: 'not-found' })];
            case 3:
                _c.sent();
                _b = (_a = strict_1.default).equal;
                return [4 /*yield*/, record()];
            case 4:
                _b.apply(_a, [(_c.sent()).hidden, false]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('the activity row names the fields changed, not their values', function () { return __awaiter(void 0, void 0, void 0, function () {
    var row;
    return __generator(this, function (_a) {
        switch (_a.label) {
            case 0: return [4 /*yield*/, h.call('softwareUpdate', { id: id, name: 'Secret Name', cadence: 'monthly' })];
            case 1:
                _a.sent();
                return [4 /*yield*/, h.call('listActivity')];
            case 2:
                row = (_a.sent()).items.find(function (x) { return x.operation === 'softwareUpdate'; });
                strict_1.default.deepEqual(row.targetIds, [id]);
                strict_1.default.equal(row.summary, "software ".concat(id, " updated: name, cadence"));
                return [2 /*return*/];
        }
    });
}); });
