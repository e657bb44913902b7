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
exports.SOFTWARE_SYNC_BATCH = void 0;
var zod_1 = require("zod");
var defineOperation_ts_1 = require("../../core/defineOperation.ts");
var schema_ts_1 = require("../../core/schema.ts");
var errors_ts_1 = require("../../core/errors.ts");
var clock_ts_1 = require("../../core/clock.ts");
var issuers_ts_1 = require("../../domain/issuers.ts");
var software_ts_1 = require("../../domain/software.ts");
/** Issuers sent to the AI per call. */
exports.SOFTWARE_SYNC_BATCH = 50;
exports.default = (0, defineOperation_ts_1.defineOperation)({
    name: 'softwareSync',
    group: 'software',
    summary: 'AI sorts issuers into software tools and ordinary suppliers: issuers of AI-read invoices that have no supplier and no software ' +
        "record, plus open suggestions; up to ".concat(exports.SOFTWARE_SYNC_BATCH, " per call. Software issuers get a software record and their invoices ") +
        '(their suggestion moves along); suppliers stay suggestions. Issuers already decided are not sent again unless force is true ' +
        '(a forced run, too, converges when called again while remaining > 0). Issuers moved by hand are never overridden. One AI quota unit per call that asks the AI.',
    flags: { openWorld: true },
    input: (0, schema_ts_1.input)({ force: zod_1.z.boolean().default(false) }),
    output: zod_1.z.object({ classified: zod_1.z.int().min(0), software: zod_1.z.int().min(0), suppliers: zod_1.z.int().min(0), remaining: zod_1.z.int().min(0) }),
    run: function (_a, ctx_1) {
        return __awaiter(this, arguments, void 0, function (_b, ctx) {
            var businessId, at, _c, generation, open, candidates, _i, open_1, d, s, seen, keys, decided, unfinished, gen, need, batch, remaining, suggestions, madeSupplier, ask, verdict, reply, _d, ask_1, c, software, _e, ask_2, c, w, _f, ask_3, c, _g, madeSupplier_1, k;
            var _h;
            var force = _b.force;
            return __generator(this, function (_j) {
                switch (_j.label) {
                    case 0:
                        if (!ctx.ai.configured)
                            throw (0, errors_ts_1.precondition)('AI is not configured');
                        businessId = ctx.caller.businessId;
                        at = (0, clock_ts_1.iso)(ctx.clock.now());
                        return [4 /*yield*/, Promise.all([
                                (0, software_ts_1.syncGeneration)(ctx.store, businessId),
                                ctx.store.query({ collection: (0, issuers_ts_1.suggestionsPath)(businessId), where: [['status', '==', 'open']] }),
                                (0, software_ts_1.unassignedIssuers)(ctx.store, businessId),
                            ])];
                    case 1:
                        _c = _j.sent(), generation = _c[0], open = _c[1], candidates = _c[2];
                        // The suggestion's name wins; line items come from an invoice when the scan saw one.
                        for (_i = 0, open_1 = open; _i < open_1.length; _i++) {
                            d = open_1[_i];
                            s = d.data;
                            seen = candidates.get(s.vendorKey);
                            candidates.set(s.vendorKey, { vendorKey: s.vendorKey, name: s.name || (seen === null || seen === void 0 ? void 0 : seen.name) || s.vendorKey, lineItems: (_h = seen === null || seen === void 0 ? void 0 : seen.lineItems) !== null && _h !== void 0 ? _h : [] });
                        }
                        keys = __spreadArray([], candidates.keys(), true).sort();
                        return [4 /*yield*/, ctx.store.getAll(keys.map(function (k) { return (0, software_ts_1.issuerClassesPath)(businessId, (0, issuers_ts_1.issuerId)(k)); }))];
                    case 2:
                        decided = (_j.sent()).map(function (d) { return d === null || d === void 0 ? void 0 : d.data; });
                        unfinished = decided.some(function (c) { return (c === null || c === void 0 ? void 0 : c.by) === 'ai' && c.generation < generation; });
                        gen = force && !unfinished ? generation + 1 : generation;
                        need = keys.filter(function (_, i) { return !decided[i] || (decided[i].by === 'ai' && decided[i].generation < gen); });
                        batch = need.slice(0, exports.SOFTWARE_SYNC_BATCH);
                        remaining = need.length - batch.length;
                        if (batch.length === 0)
                            return [2 /*return*/, { classified: 0, software: 0, suppliers: 0, remaining: 0 }];
                        return [4 /*yield*/, ctx.store.getAll(batch.map(function (k) { return (0, issuers_ts_1.suggestionsPath)(businessId, (0, issuers_ts_1.issuerId)(k)); }))];
                    case 3:
                        suggestions = _j.sent();
                        madeSupplier = batch.filter(function (_, i) { var _a, _b; return ((_b = (_a = suggestions[i]) === null || _a === void 0 ? void 0 : _a.data) === null || _b === void 0 ? void 0 : _b.status) === 'created'; });
                        ask = batch.filter(function (k) { return !madeSupplier.includes(k); }).map(function (k) { return candidates.get(k); });
                        verdict = {};
                        if (!(ask.length > 0)) return [3 /*break*/, 6];
                        return [4 /*yield*/, ctx.consumeQuota('ai')];
                    case 4:
                        _j.sent();
                        return [4 /*yield*/, ctx.ai.classifySoftware(ask.map(function (c) { return ({ key: c.vendorKey, name: c.name, lineItems: c.lineItems }); }))];
                    case 5:
                        reply = _j.sent();
                        if (!reply.ok)
                            throw new errors_ts_1.ApiError('unavailable', "AI could not classify the issuers: ".concat(reply.reason, ". Nothing was changed; try again later."));
                        // An issuer the AI leaves out counts as a supplier, so that calling again converges.
                        for (_d = 0, ask_1 = ask; _d < ask_1.length; _d++) {
                            c = ask_1[_d];
                            verdict[c.vendorKey] = Object.hasOwn(reply.value, c.vendorKey) && reply.value[c.vendorKey] === 'software' ? 'software' : 'supplier';
                        }
                        _j.label = 6;
                    case 6:
                        software = 0;
                        _e = 0, ask_2 = ask;
                        _j.label = 7;
                    case 7:
                        if (!(_e < ask_2.length)) return [3 /*break*/, 10];
                        c = ask_2[_e];
                        if (verdict[c.vendorKey] !== 'software')
                            return [3 /*break*/, 9];
                        return [4 /*yield*/, (0, software_ts_1.moveIssuerToSoftware)(ctx.store, businessId, c, at)];
                    case 8:
                        _j.sent();
                        software++;
                        _j.label = 9;
                    case 9:
                        _e++;
                        return [3 /*break*/, 7];
                    case 10:
                        w = ctx.store.batch();
                        for (_f = 0, ask_3 = ask; _f < ask_3.length; _f++) {
                            c = ask_3[_f];
                            (0, software_ts_1.recordIssuerClass)(w, businessId, { vendorKey: c.vendorKey, class: verdict[c.vendorKey], by: 'ai', generation: gen, classifiedAt: at });
                        }
                        for (_g = 0, madeSupplier_1 = madeSupplier; _g < madeSupplier_1.length; _g++) {
                            k = madeSupplier_1[_g];
                            (0, software_ts_1.recordIssuerClass)(w, businessId, { vendorKey: k, class: 'supplier', by: 'hand', generation: 0, classifiedAt: at });
                        }
                        if (gen !== generation)
                            w.set((0, software_ts_1.softwareSyncStatePath)(businessId), { generation: gen, forcedAt: at });
                        return [4 /*yield*/, w.commit()];
                    case 11:
                        _j.sent();
                        return [2 /*return*/, { classified: ask.length, software: software, suppliers: ask.length - software, remaining: remaining }];
                }
            });
        });
    },
    activity: function (input, r) { return ({
        targetIds: [],
        summary: "software sync".concat(input.force ? ' (forced)' : '', ": ").concat(r.classified, " issuer(s) classified, ").concat(r.software, " software, ").concat(r.suppliers, " supplier(s), ").concat(r.remaining, " remaining"),
    }); },
});
