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
var zod_1 = require("zod");
var defineOperation_ts_1 = require("../../core/defineOperation.ts");
var schema_ts_1 = require("../../core/schema.ts");
var clock_ts_1 = require("../../core/clock.ts");
var issuers_ts_1 = require("../../domain/issuers.ts");
var software_ts_1 = require("../../domain/software.ts");
exports.default = (0, defineOperation_ts_1.defineOperation)({
    name: 'supplierSuggestionsDismiss',
    group: 'suppliers',
    summary: 'Hide suggestions from the suggestion list (their invoices stay as they are). Unknown ids are reported in notFound; suggestions ' +
        'already made suppliers or moved to software are reported in skipped. Dismissing twice is harmless.',
    flags: { idempotent: true },
    input: (0, schema_ts_1.input)({ ids: zod_1.z.array((0, schema_ts_1.id)()).min(1).max(software_ts_1.MAX_SUGGESTION_IDS) }),
    output: zod_1.z.object({
        dismissed: zod_1.z.array(zod_1.z.string()),
        notFound: zod_1.z.array(zod_1.z.string()),
        skipped: zod_1.z.array(zod_1.z.object({ id: zod_1.z.string(), reason: zod_1.z.string() })),
    }),
    run: function (_a, ctx_1) {
        return __awaiter(this, arguments, void 0, function (_b, ctx) {
            var businessId, ids, at;
            var _this = this;
            var rawIds = _b.ids;
            return __generator(this, function (_c) {
                businessId = ctx.caller.businessId;
                ids = __spreadArray([], new Set(rawIds), true);
                at = (0, clock_ts_1.iso)(ctx.clock.now());
                return [2 /*return*/, ctx.store.runTransaction(function (tx) { return __awaiter(_this, void 0, void 0, function () {
                        var docs, out, _i, _a, _b, i, sid, s;
                        var _c, _d;
                        return __generator(this, function (_e) {
                            switch (_e.label) {
                                case 0: return [4 /*yield*/, tx.getAll(ids.map(function (sid) { return (0, issuers_ts_1.suggestionsPath)(businessId, sid); }))];
                                case 1:
                                    docs = _e.sent();
                                    out = { dismissed: [], notFound: [], skipped: [] };
                                    for (_i = 0, _a = ids.entries(); _i < _a.length; _i++) {
                                        _b = _a[_i], i = _b[0], sid = _b[1];
                                        s = (_c = docs[i]) === null || _c === void 0 ? void 0 : _c.data;
                                        if (!s)
                                            out.notFound.push(sid);
                                        else if (s.status === 'created')
                                            out.skipped.push({ id: sid, reason: "it is already supplier ".concat((_d = s.supplierKey) !== null && _d !== void 0 ? _d : '').trim() });
                                        else if (s.status === 'software')
                                            out.skipped.push({ id: sid, reason: 'it is in the software list' });
                                        else {
                                            if (s.status !== 'dismissed')
                                                tx.update(docs[i].path, { status: 'dismissed', updatedAt: at });
                                            out.dismissed.push(sid);
                                        }
                                    }
                                    return [2 /*return*/, out];
                            }
                        });
                    }); })];
            });
        });
    },
    activity: function (_input, r) { return ({
        targetIds: r.dismissed,
        summary: "".concat(r.dismissed.length, " suggestion(s) dismissed; ").concat(r.notFound.length, " not found, ").concat(r.skipped.length, " skipped"),
    }); },
});
