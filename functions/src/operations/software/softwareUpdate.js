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
var zod_1 = require("zod");
var defineOperation_ts_1 = require("../../core/defineOperation.ts");
var schema_ts_1 = require("../../core/schema.ts");
var errors_ts_1 = require("../../core/errors.ts");
var clock_ts_1 = require("../../core/clock.ts");
var issuers_ts_1 = require("../../domain/issuers.ts");
var software_ts_1 = require("../../domain/software.ts");
exports.default = (0, defineOperation_ts_1.defineOperation)({
    name: 'softwareUpdate',
    group: 'software',
    summary: 'Rename a software tool, hide or show it, or set its billing cadence (auto, monthly, yearly). Only the fields sent change.',
    flags: { idempotent: true },
    input: (0, schema_ts_1.input)({
        id: (0, schema_ts_1.id)(),
        name: zod_1.z.string().trim().min(1).max(schema_ts_1.LIMITS.shortText).optional(),
        hidden: zod_1.z.boolean().optional(),
        cadence: zod_1.z.enum(software_ts_1.CADENCES).optional(),
    }),
    output: software_ts_1.softwareRowSchema,
    run: function (_a, ctx_1) {
        return __awaiter(this, arguments, void 0, function (_b, ctx) {
            var businessId, path, changes, record, _c, _d;
            var _this = this;
            var swId = _b.id, name = _b.name, hidden = _b.hidden, cadence = _b.cadence;
            return __generator(this, function (_e) {
                switch (_e.label) {
                    case 0:
                        businessId = ctx.caller.businessId;
                        path = (0, issuers_ts_1.softwarePath)(businessId, swId);
                        changes = Object.fromEntries(Object.entries({ name: name, hidden: hidden, cadence: cadence }).filter(function (_a) {
                            var v = _a[1];
                            return v !== undefined;
                        }));
                        return [4 /*yield*/, ctx.store.runTransaction(function (tx) { return __awaiter(_this, void 0, void 0, function () {
                                var doc, current, updatedAt;
                                return __generator(this, function (_a) {
                                    switch (_a.label) {
                                        case 0: return [4 /*yield*/, tx.get(path)];
                                        case 1:
                                            doc = _a.sent();
                                            if (!doc)
                                                throw (0, errors_ts_1.notFound)("software ".concat(swId));
                                            current = doc.data;
                                            if (Object.keys(changes).length === 0)
                                                return [2 /*return*/, current];
                                            updatedAt = (0, clock_ts_1.iso)(ctx.clock.now());
                                            tx.update(path, __assign(__assign({}, changes), { updatedAt: updatedAt }));
                                            return [2 /*return*/, __assign(__assign(__assign({}, current), changes), { updatedAt: updatedAt })];
                                    }
                                });
                            }); })];
                    case 1:
                        record = _e.sent();
                        _c = software_ts_1.softwareRow;
                        _d = [record];
                        return [4 /*yield*/, (0, software_ts_1.countInvoicesOf)(ctx.store, businessId, 'softwareId', swId)];
                    case 2: return [2 /*return*/, _c.apply(void 0, _d.concat([_e.sent()]))];
                }
            });
        });
    },
    // Field names only, as for supplier cards.
    activity: function (input, r) { return ({
        targetIds: [r.id],
        summary: "software ".concat(r.id, " updated: ").concat(['name', 'hidden', 'cadence'].filter(function (f) { return input[f] !== undefined; }).join(', ') || 'nothing'),
    }); },
});
