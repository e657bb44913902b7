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
var zod_1 = require("zod");
var defineOperation_ts_1 = require("../../core/defineOperation.ts");
var schema_ts_1 = require("../../core/schema.ts");
var issuers_ts_1 = require("../../domain/issuers.ts");
var software_ts_1 = require("../../domain/software.ts");
var byName = new Intl.Collator(['he', 'en'], { sensitivity: 'base', numeric: true });
exports.default = (0, defineOperation_ts_1.defineOperation)({
    name: 'softwareList',
    group: 'software',
    summary: 'Every software tool (card-paid tool or service) with its cadence, hidden flag and invoice count, sorted by name; hidden tools are listed too.',
    flags: { readOnly: true },
    input: (0, schema_ts_1.empty)(),
    output: zod_1.z.object({ items: zod_1.z.array(software_ts_1.softwareRowSchema), total: zod_1.z.int().min(0) }),
    run: function (_input, ctx) {
        return __awaiter(this, void 0, void 0, function () {
            var businessId, docs, items;
            var _this = this;
            return __generator(this, function (_a) {
                switch (_a.label) {
                    case 0:
                        businessId = ctx.caller.businessId;
                        return [4 /*yield*/, ctx.store.query({ collection: (0, issuers_ts_1.softwarePath)(businessId) })];
                    case 1:
                        docs = _a.sent();
                        return [4 /*yield*/, Promise.all(docs.map(function (d) { return __awaiter(_this, void 0, void 0, function () { var _a, _b; return __generator(this, function (_c) {
                                switch (_c.label) {
                                    case 0:
                                        _a = software_ts_1.softwareRow;
                                        _b = [d.data];
                                        return [4 /*yield*/, (0, software_ts_1.countInvoicesOf)(ctx.store, businessId, 'softwareId', d.id)];
                                    case 1: return [2 /*return*/, _a.apply(void 0, _b.concat([_c.sent()]))];
                                }
                            }); }); }))];
                    case 2:
                        items = _a.sent();
                        items.sort(function (a, b) { return byName.compare(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0); });
                        return [2 /*return*/, { items: items, total: items.length }];
                }
            });
        });
    },
});
