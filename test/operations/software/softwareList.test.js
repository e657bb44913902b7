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
var http_ts_1 = require("../../http.ts");
var fixtures_test_ts_1 = require("./helpers.ts");
var h;
(0, node_test_1.before)(function () { return __awaiter(void 0, void 0, void 0, function () { return __generator(this, function (_a) {
    switch (_a.label) {
        case 0: return [4 /*yield*/, (0, harness_ts_1.createHarness)()];
        case 1: return [2 /*return*/, (h = _a.sent())];
    }
}); }); });
(0, node_test_1.after)(function () { return h.close(); });
(0, node_test_1.test)('lists every tool, hidden ones too, with cadence and invoice count, sorted by name', function () { return __awaiter(void 0, void 0, void 0, function () {
    var b, store, zoom, adobe, _a, _b;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0:
                b = h.owner.businessId;
                store = h.app.services.store;
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store, b, { name: 'Zoom', email: 'billing@zoom.example' }, { count: 2 })];
            case 1:
                zoom = _c.sent();
                return [4 /*yield*/, (0, fixtures_test_ts_1.seedIssuer)(store, b, { name: 'adobe', vatId: '526262626' }, { count: 1 })];
            case 2:
                adobe = _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: zoom.id })];
            case 3:
                _c.sent();
                return [4 /*yield*/, h.call('supplierSuggestionToSoftware', { id: adobe.id })];
            case 4:
                _c.sent();
                return [4 /*yield*/, h.call('softwareUpdate', { id: zoom.id, hidden: true, cadence: 'monthly' })];
            case 5:
                _c.sent();
                // An upload after the move carries softwareId; it counts too.
                return [4 /*yield*/, (0, fixtures_test_ts_1.putInvoices)(store, [(0, fixtures_test_ts_1.invoiceDoc)(b, (0, fixtures_test_ts_1.reading)({ name: 'Zoom', email: 'billing@zoom.example' }), { softwareId: zoom.id })])];
            case 6:
                // An upload after the move carries softwareId; it counts too.
                _c.sent();
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareList')];
            case 7:
                _b.apply(_a, [_c.sent(), {
                        items: [
                            { id: adobe.id, name: 'adobe', vendorKey: 'vat:526262626', hidden: false, cadence: 'auto', docCount: 1 },
                            { id: zoom.id, name: 'Zoom', vendorKey: 'email:billing@zoom.example', hidden: true, cadence: 'monthly', docCount: 3 },
                        ],
                        total: 2,
                    }]);
                return [2 /*return*/];
        }
    });
}); });
(0, node_test_1.test)('another business has its own list; GET works (read-only)', function () { return __awaiter(void 0, void 0, void 0, function () {
    var other, _a, _b, origin, res;
    return __generator(this, function (_c) {
        switch (_c.label) {
            case 0: return [4 /*yield*/, h.newBusiness('Other Co')];
            case 1:
                other = _c.sent();
                _b = (_a = strict_1.default).deepEqual;
                return [4 /*yield*/, h.call('softwareList', {}, other)];
            case 2:
                _b.apply(_a, [_c.sent(), { items: [], total: 0 }]);
                return [4 /*yield*/, h.listen()];
            case 3:
                origin = _c.sent();
                return [4 /*yield*/, (0, http_ts_1.get)(origin, '/v1/softwareList', h.owner.apiKey)];
            case 4:
                res = _c.sent();
                strict_1.default.equal(res.status, 200);
                strict_1.default.equal(res.body.result.total, 2);
                return [4 /*yield*/, strict_1.default.rejects(h.call('softwareList', { hidden: true }), { code: 'invalid-argument', message: /^hidden: / })];
            case 5:
                _c.sent();
                return [2 /*return*/];
        }
    });
}); });
