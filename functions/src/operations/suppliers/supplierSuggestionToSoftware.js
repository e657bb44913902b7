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
var defineOperation_ts_1 = require("../../core/defineOperation.ts");
var schema_ts_1 = require("../../core/schema.ts");
var errors_ts_1 = require("../../core/errors.ts");
var clock_ts_1 = require("../../core/clock.ts");
var issuers_ts_1 = require("../../domain/issuers.ts");
var software_ts_1 = require("../../domain/software.ts");
exports.default = (0, defineOperation_ts_1.defineOperation)({
    name: 'supplierSuggestionToSoftware',
    group: 'suppliers',
    summary: "Move a suggestion with its invoices to the software list: the issuer's software record (new ones visible, cadence auto) gets " +
        'the invoices, the suggestion is closed, and softwareSync will not move it back. Returns the software record.',
    flags: { idempotent: true },
    input: (0, schema_ts_1.input)({ id: (0, schema_ts_1.id)() }),
    output: software_ts_1.softwareRowSchema,
    run: function (_a, ctx_1) {
        return __awaiter(this, arguments, void 0, function (_b, ctx) {
            var businessId, at, doc, s, softwareId, batch, sw, _c, _d;
            var _e;
            var sid = _b.id;
            return __generator(this, function (_f) {
                switch (_f.label) {
                    case 0:
                        businessId = ctx.caller.businessId;
                        at = (0, clock_ts_1.iso)(ctx.clock.now());
                        return [4 /*yield*/, ctx.store.get((0, issuers_ts_1.suggestionsPath)(businessId, sid))];
                    case 1:
                        doc = _f.sent();
                        if (!doc)
                            throw (0, errors_ts_1.notFound)("suggestion ".concat(sid));
                        s = doc.data;
                        if (s.status === 'created')
                            throw (0, errors_ts_1.precondition)("suggestion ".concat(sid, " is already supplier ").concat((_e = s.supplierKey) !== null && _e !== void 0 ? _e : '', "; it cannot move to software").trim());
                        return [4 /*yield*/, (0, software_ts_1.moveIssuerToSoftware)(ctx.store, businessId, { vendorKey: s.vendorKey, name: s.name }, at)];
                    case 2:
                        softwareId = (_f.sent()).softwareId;
                        batch = ctx.store.batch();
                        (0, software_ts_1.recordIssuerClass)(batch, businessId, { vendorKey: s.vendorKey, class: 'software', by: 'hand', generation: 0, classifiedAt: at });
                        return [4 /*yield*/, batch.commit()];
                    case 3:
                        _f.sent();
                        return [4 /*yield*/, ctx.store.get((0, issuers_ts_1.softwarePath)(businessId, softwareId))];
                    case 4:
                        sw = _f.sent();
                        if (!sw)
                            throw (0, errors_ts_1.notFound)("software ".concat(softwareId)); // moved back by a parallel call
                        _c = software_ts_1.softwareRow;
                        _d = [sw.data];
                        return [4 /*yield*/, (0, software_ts_1.countInvoicesOf)(ctx.store, businessId, 'softwareId', softwareId)];
                    case 5: // moved back by a parallel call
                    return [2 /*return*/, _c.apply(void 0, _d.concat([_f.sent()]))];
                }
            });
        });
    },
    activity: function (_input, r) { return ({ targetIds: [r.id], summary: "suggestion moved to software ".concat(r.name, " with ").concat(r.docCount, " invoice(s)") }); },
});
