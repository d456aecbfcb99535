// Generated from PostgreSQL 15.18 (TimeZone UTC, DateStyle ISO, IntervalStyle postgres,
// extra_float_digits 1) by an oracle script; do not edit by hand. Each line: type, input, result.
// A result is `ok:<text>` or `err:<SQLSTATE>:<message>`.

/// Postgres's text input then output for many inputs of many types.
let textInputCases: [[String]] = textInputCasesText.split(separator: "\n", omittingEmptySubsequences: true).map {
    $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
}

private let textInputCasesText = #"""
float8	0	ok:0
float8	-0	ok:-0
float8	1	ok:1
float8	-1	ok:-1
float8	0.1	ok:0.1
float8	1.5	ok:1.5
float8	100	ok:100
float8	1e14	ok:100000000000000
float8	1e15	ok:1e+15
float8	1e16	ok:1e+16
float8	123456789012345	ok:123456789012345
float8	1234567890123456	ok:1.234567890123456e+15
float8	1e-4	ok:0.0001
float8	1e-5	ok:1e-05
float8	0.0001234	ok:0.0001234
float8	0.00001234	ok:1.234e-05
float8	1.5e-7	ok:1.5e-07
float8	1e20	ok:1e+20
float8	1e300	ok:1e+300
float8	1.7976931348623157e308	ok:1.7976931348623157e+308
float8	5e-324	ok:5e-324
float8	2.2250738585072014e-308	ok:2.2250738585072014e-308
float8	0.3333333333333333	ok:0.3333333333333333
float8	NaN	ok:NaN
float8	Infinity	ok:Infinity
float8	-Infinity	ok:-Infinity
float8	inf	ok:Infinity
float8	-inf	ok:-Infinity
float8	nan	ok:NaN
float8	 1.5 	ok:1.5
float8	+2.5	ok:2.5
float8	1e400	err:22003:"1e400" is out of range for type double precision
float8	-1e400	err:22003:"-1e400" is out of range for type double precision
float8	1e-400	err:22003:"1e-400" is out of range for type double precision
float8	abc	err:22P02:invalid input syntax for type double precision: "abc"
float8		err:22P02:invalid input syntax for type double precision: ""
float8	1.5x	err:22P02:invalid input syntax for type double precision: "1.5x"
float8	1e	err:22P02:invalid input syntax for type double precision: "1e"
float8	.5	ok:0.5
float8	5.	ok:5
float8	1E+3	ok:1000
float8	  -0.000001  	ok:-1e-06
float8	123456789.123456789	ok:123456789.12345679
float8	9007199254740993	ok:9.007199254740992e+15
float8	0.1e-3	ok:0.0001
float8	6484239571.188396	ok:6484239571.188396
float8	6.2768648486953e-19	ok:6.2768648486953e-19
float8	95181659871947.89	ok:95181659871947.89
float8	-0.009725033608250597	ok:-0.009725033608250597
float8	7.845108690208101e-06	ok:7.845108690208101e-06
float8	3.5957586123655244e-22	ok:3.5957586123655244e-22
float8	-74927197626.10579	ok:-74927197626.10579
float8	6.650235595278534e+19	ok:6.650235595278534e+19
float8	28156002877796.65	ok:28156002877796.65
float8	-244.288	ok:-244.288
float8	3871343055478.5654	ok:3871343055478.5654
float8	-8.305143403267533e+16	ok:-8.305143403267533e+16
float8	-6.892580394958514e-22	ok:-6.892580394958514e-22
float8	-246.85673248276518	ok:-246.85673248276518
float8	-89148920.8839	ok:-89148920.8839
float8	-1.8967550962291358e+22	ok:-1.8967550962291358e+22
float8	-542933754614925.9	ok:-542933754614925.9
float8	0.3229902407614945	ok:0.3229902407614945
float8	-1.8121857468646353e-10	ok:-1.8121857468646353e-10
float8	-0.0	ok:-0
float8	-7.61492493821438e-15	ok:-7.61492493821438e-15
float8	7723179808573732.0	ok:7.723179808573732e+15
float8	3533014614899105.0	ok:3.533014614899105e+15
float8	0.0	ok:0
float8	7.922401834237777e-23	ok:7.922401834237777e-23
float8	8.282881268379303e+21	ok:8.282881268379303e+21
float8	4.483887083939952e-26	ok:4.483887083939952e-26
float8	-74245286.11617748	ok:-74245286.11617748
float8	-263433615988926.56	ok:-263433615988926.56
float8	0.1	ok:0.1
float8	-9167861488536.953	ok:-9167861488536.953
float8	418497250695.6012	ok:418497250695.6012
float8	9.478282464392224e+23	ok:9.478282464392224e+23
float8	-5902917409448.359	ok:-5902917409448.359
float8	3.634387303745311e-11	ok:3.634387303745311e-11
float8	841335372483848.5	ok:841335372483848.5
float8	0.0	ok:0
float8	7643106.90008719	ok:7643106.90008719
float8	0.957	ok:0.957
float8	-0.1457	ok:-0.1457
float8	-5.3948687581410476e-11	ok:-5.3948687581410476e-11
float8	-37455.15	ok:-37455.15
float8	1.4288459272445375e+20	ok:1.4288459272445375e+20
float8	-0.0	ok:-0
float8	-56024.08	ok:-56024.08
float8	-580641.3235456279	ok:-580641.3235456279
float8	0.0	ok:0
float8	-8.866999605805452e-09	ok:-8.866999605805452e-09
float8	3813631.65	ok:3813631.65
float8	-8.124647520996697e-25	ok:-8.124647520996697e-25
float8	0.0	ok:0
float8	0.0	ok:0
float8	-8119564676103.319	ok:-8119564676103.319
float8	6.546993837732893e-13	ok:6.546993837732893e-13
float8	-68605492.1419	ok:-68605492.1419
float8	-7.034754006984041e+20	ok:-7.034754006984041e+20
float8	-86056832090.55098	ok:-86056832090.55098
float8	-9.475520571535157e+19	ok:-9.475520571535157e+19
float8	-5.421447611980319e-22	ok:-5.421447611980319e-22
float8	281.225	ok:281.225
float8	-0.021	ok:-0.021
float8	3.2032765803203323e+18	ok:3.2032765803203323e+18
float8	9560542.667287035	ok:9560542.667287035
float8	-5.960611358978917	ok:-5.960611358978917
float8	0.0	ok:0
float8	24175.77583959828	ok:24175.77583959828
float8	14340.99731713644	ok:14340.99731713644
float8	63093406844727.86	ok:63093406844727.86
float8	0.0	ok:0
float8	0.0	ok:0
float8	3.966708549016394e+19	ok:3.966708549016394e+19
float8	0.002395769246379307	ok:0.002395769246379307
float8	-8836153.499151397	ok:-8836153.499151397
float8	0.0021100820446513114	ok:0.0021100820446513114
float8	-0.0	ok:-0
float8	-195.35490065537874	ok:-195.35490065537874
float8	558213045.8686991	ok:558213045.8686991
float8	-0.0009842419754481472	ok:-0.0009842419754481472
float8	1.5175252674836237e-08	ok:1.5175252674836237e-08
float8	80411.4650513894	ok:80411.4650513894
float8	-0.0	ok:-0
float8	-9.967839938026112e-13	ok:-9.967839938026112e-13
float8	9261.141172895947	ok:9261.141172895947
float8	0.0	ok:0
float8	-1.8257663012684055e-27	ok:-1.8257663012684055e-27
float8	-3767580353.697185	ok:-3767580353.697185
float8	7238241250.710358	ok:7238241250.710358
float8	8.956847768677575e+22	ok:8.956847768677575e+22
float8	-0.001	ok:-0.001
float8	8.595842488083794e+18	ok:8.595842488083794e+18
float8	-5.592707759115012e+21	ok:-5.592707759115012e+21
float8	6.011022565196017e+24	ok:6.011022565196017e+24
float8	-42650828182534.98	ok:-42650828182534.98
float8	4.459175846541774e-16	ok:4.459175846541774e-16
float8	0.058776436178013036	ok:0.058776436178013036
float8	-5.112968511246857e+17	ok:-5.112968511246857e+17
float8	11715708.823329708	ok:11715708.823329708
float8	0.0	ok:0
float8	-7.494769098516862e-23	ok:-7.494769098516862e-23
float8	-0.007431148993766774	ok:-0.007431148993766774
float8	0.00454538147233856	ok:0.00454538147233856
float8	8.344133924356644e-10	ok:8.344133924356644e-10
float8	-1.8935575866868215e+21	ok:-1.8935575866868215e+21
float8	0.0	ok:0
float8	15.222120734732393	ok:15.222120734732393
float8	0.0	ok:0
float8	-9.161327972303896e+16	ok:-9.161327972303896e+16
float8	0.0	ok:0
float8	8.461376901211466e-06	ok:8.461376901211466e-06
float8	6951.694618385266	ok:6951.694618385266
float8	-5.360811649951072e-09	ok:-5.360811649951072e-09
float8	-799504.1110628863	ok:-799504.1110628863
float8	68.67790004412618	ok:68.67790004412618
float8	-9.679578063470947e+17	ok:-9.679578063470947e+17
float8	0.0	ok:0
float8	9.761649173622702e-12	ok:9.761649173622702e-12
float8	9.82549922917561e+20	ok:9.82549922917561e+20
float8	-1.3801419229369062e-20	ok:-1.3801419229369062e-20
float8	8.20785780301219e-16	ok:8.20785780301219e-16
float8	1.896600577222989e-05	ok:1.896600577222989e-05
float8	-9315910453.031229	ok:-9315910453.031229
float8	-0.0	ok:-0
float8	-669066998.5253512	ok:-669066998.5253512
float8	-9.827470306429587e-16	ok:-9.827470306429587e-16
float8	4.1424305451334647e+24	ok:4.1424305451334647e+24
float8	910090963421847.2	ok:910090963421847.2
float8	-0.0	ok:-0
float8	-868211626915619.9	ok:-868211626915619.9
float8	1.4439666087695213e+20	ok:1.4439666087695213e+20
float8	0.0	ok:0
float8	-14394.690523689012	ok:-14394.690523689012
float8	904891256400.2324	ok:904891256400.2324
float8	-7352029889.665171	ok:-7352029889.665171
float8	-7.515188788921624e-20	ok:-7.515188788921624e-20
float8	839057457720434.0	ok:839057457720434
float8	-811473.0472562548	ok:-811473.0472562548
float8	4.680789106068398e+19	ok:4.680789106068398e+19
float8	-1.8431720781060268e+16	ok:-1.8431720781060268e+16
float8	3.989559560539281e-10	ok:3.989559560539281e-10
float8	-8.414388360166119e+20	ok:-8.414388360166119e+20
float8	1.1799643756111922e-17	ok:1.1799643756111922e-17
float8	-3.3370313369861683e-05	ok:-3.3370313369861683e-05
float8	-7.940983619938211e-23	ok:-7.940983619938211e-23
float8	0.0009819106344708603	ok:0.0009819106344708603
float8	3.58619409469076e-20	ok:3.58619409469076e-20
float8	-2.6989915537250954e+17	ok:-2.6989915537250954e+17
float8	-7.234923308348232e-24	ok:-7.234923308348232e-24
float8	-1.1930007506536622e+18	ok:-1.1930007506536622e+18
float8	6.004942165307712e-19	ok:6.004942165307712e-19
float8	5.962614979027328e+23	ok:5.962614979027328e+23
float4	0	ok:0
float4	-0	ok:-0
float4	1	ok:1
float4	0.1	ok:0.1
float4	1.5	ok:1.5
float4	1e5	ok:100000
float4	1e6	ok:1e+06
float4	1e7	ok:1e+07
float4	123456	ok:123456
float4	1234567	ok:1.234567e+06
float4	12345678	ok:1.2345678e+07
float4	1e-4	ok:0.0001
float4	1e-5	ok:1e-05
float4	0.3333333	ok:0.3333333
float4	16777216	ok:1.6777216e+07
float4	3.4e38	ok:3.4e+38
float4	3.5e38	err:22003:"3.5e38" is out of range for type real
float4	1e-45	ok:1e-45
float4	1e-46	err:22003:"1e-46" is out of range for type real
float4	NaN	ok:NaN
float4	-Infinity	ok:-Infinity
float4	abc	err:22P02:invalid input syntax for type real: "abc"
float4	3.14159265358979	ok:3.1415927
float4	2.7182817	ok:2.7182817
float4	2.14751276e-10	ok:2.1475127e-10
float4	-0.7871	ok:-0.7871
float4	-5.8951918e-07	ok:-5.895192e-07
float4	0.00805424151	ok:0.008054242
float4	3.978331e-06	ok:3.978331e-06
float4	0.00093182	ok:0.00093182
float4	-7.933e-06	ok:-7.933e-06
float4	8.76921727e+11	ok:8.7692175e+11
float4	0.0003852993	ok:0.0003852993
float4	-0.000592264	ok:-0.000592264
float4	4.60877561e-06	ok:4.6087757e-06
float4	8651401.69	ok:8.651402e+06
float4	71.7	ok:71.7
float4	-4341	ok:-4341
float4	-22006696.7	ok:-2.2006696e+07
float4	9.6757e-11	ok:9.6757e-11
float4	-760.2	ok:-760.2
float4	2.19656843e-13	ok:2.1965684e-13
float4	-121289920	ok:-1.2128992e+08
float4	-4.183e+11	ok:-4.183e+11
float4	-1e-13	ok:-1e-13
float4	-8.24322e-07	ok:-8.24322e-07
float4	-7.26e-13	ok:-7.26e-13
float4	-141	ok:-141
float4	5.103e+08	ok:5.103e+08
float4	5e-07	ok:5e-07
float4	4.602e-12	ok:4.602e-12
float4	-9.39e+04	ok:-93900
float4	0.8817912	ok:0.8817912
float4	-7.4e+11	ok:-7.4e+11
float4	-7e-10	ok:-7e-10
float4	0.000235071662	ok:0.00023507167
float4	2.002e-07	ok:2.002e-07
float4	2.9e+03	ok:2900
float4	3030.4923	ok:3030.4922
float4	-0.073158	ok:-0.073158
float4	-4.46086385e+11	ok:-4.4608638e+11
float4	1.6779737e-07	ok:1.6779737e-07
float4	-1.5e-09	ok:-1.5e-09
float4	-7.787356e+08	ok:-7.787356e+08
float4	-2e+05	ok:-200000
float4	8.51069614e-05	ok:8.510696e-05
float4	-4.13e-06	ok:-4.13e-06
float4	4e+09	ok:4e+09
float4	-62.893	ok:-62.893
float4	-8.697e-07	ok:-8.697e-07
float4	-3.757535e+08	ok:-3.757535e+08
float4	0.001757	ok:0.001757
float4	7.12070827e-08	ok:7.120708e-08
float4	2.2e+07	ok:2.2e+07
float4	9.367409	ok:9.367409
float4	-2.243e+10	ok:-2.243e+10
float4	4.16e+10	ok:4.16e+10
float4	4.9296e-05	ok:4.9296e-05
float4	-7.432093e-09	ok:-7.432093e-09
float4	0.0863005282	ok:0.08630053
float4	8.4093e+07	ok:8.4093e+07
float4	9.5e-08	ok:9.5e-08
float4	-4.2e+03	ok:-4200
float4	-8.406e+07	ok:-8.406e+07
bool	t	ok:t
bool	true	ok:t
bool	TRUE	ok:t
bool	yes	ok:t
bool	y	ok:t
bool	on	ok:t
bool	1	ok:t
bool	f	ok:f
bool	false	ok:f
bool	no	ok:f
bool	n	ok:f
bool	off	ok:f
bool	0	ok:f
bool	 true 	ok:t
bool	tr	ok:t
bool	of	ok:f
bool	o	err:22P02:invalid input syntax for type boolean: "o"
bool	maybe	err:22P02:invalid input syntax for type boolean: "maybe"
bool		err:22P02:invalid input syntax for type boolean: ""
bool	2	err:22P02:invalid input syntax for type boolean: "2"
bool	yes please	err:22P02:invalid input syntax for type boolean: "yes please"
int2	0	ok:0
int2	32767	ok:32767
int2	-32768	ok:-32768
int2	32768	err:22003:value "32768" is out of range for type smallint
int2	-32769	err:22003:value "-32769" is out of range for type smallint
int2	 42 	ok:42
int2	+7	ok:7
int2	abc	err:22P02:invalid input syntax for type smallint: "abc"
int2		err:22P02:invalid input syntax for type smallint: ""
int2	1.5	err:22P02:invalid input syntax for type smallint: "1.5"
int2	99999999999999999999	err:22003:value "99999999999999999999" is out of range for type smallint
int4	0	ok:0
int4	2147483647	ok:2147483647
int4	-2147483648	ok:-2147483648
int4	2147483648	err:22003:value "2147483648" is out of range for type integer
int4	99999999999	err:22003:value "99999999999" is out of range for type integer
int4	abc	err:22P02:invalid input syntax for type integer: "abc"
int4	 -12 	ok:-12
int4	1 2	err:22P02:invalid input syntax for type integer: "1 2"
int4	1e3	err:22P02:invalid input syntax for type integer: "1e3"
int4	+	err:22P02:invalid input syntax for type integer: "+"
int4	-	err:22P02:invalid input syntax for type integer: "-"
int8	0	ok:0
int8	9223372036854775807	ok:9223372036854775807
int8	-9223372036854775808	ok:-9223372036854775808
int8	9223372036854775808	err:22003:value "9223372036854775808" is out of range for type bigint
int8	-9223372036854775809	err:22003:value "-9223372036854775809" is out of range for type bigint
int8	 12345678901 	ok:12345678901
int8	x1	err:22P02:invalid input syntax for type bigint: "x1"
numeric	0	ok:0
numeric	1.50	ok:1.50
numeric	-0.001	ok:-0.001
numeric	1.5	ok:1.5
numeric	-.5	ok:-0.5
numeric	1e3	ok:1000
numeric	1.5e-3	ok:0.0015
numeric	1.50e1	ok:15.0
numeric	 2.50 	ok:2.50
numeric	+3	ok:3
numeric	0.000	ok:0.000
numeric	-0	ok:0
numeric	123456789012345678901234567890.12345678	ok:123456789012345678901234567890.12345678
numeric	abc	err:22P02:invalid input syntax for type numeric: "abc"
numeric		err:22P02:invalid input syntax for type numeric: ""
numeric	1.2.3	err:22P02:invalid input syntax for type numeric: "1.2.3"
numeric	1e	err:22P02:invalid input syntax for type numeric: "1e"
numeric	00012.3400	ok:12.3400
numeric	.	err:22P02:invalid input syntax for type numeric: "."
numeric	1E+2	ok:100
numeric	12e-2	ok:0.12
numeric	8928053815.1760	ok:8928053815.1760
numeric	643446.73	ok:643446.73
numeric	-0.83	ok:-0.83
numeric	-278468886472046.21	ok:-278468886472046.21
numeric	-0.47973982	ok:-0.47973982
numeric	860.37565676	ok:860.37565676
numeric	429783.74	ok:429783.74
numeric	04821.4572216534	ok:4821.4572216534
numeric	-070	ok:-70
numeric	-2	ok:-2
numeric	-454105958.2428	ok:-454105958.2428
numeric	750.918	ok:750.918
numeric	0.88059	ok:0.88059
numeric	94123.25	ok:94123.25
numeric	0703375803604746.6	ok:703375803604746.6
numeric	65102568.49112426908	ok:65102568.49112426908
numeric	0.0	ok:0.0
numeric	2.968544903817	ok:2.968544903817
numeric	-0971715.888160091	ok:-971715.888160091
numeric	424.493929	ok:424.493929
numeric	0163716337896523687	ok:163716337896523687
numeric	0.38801	ok:0.38801
numeric	-04.6	ok:-4.6
numeric	-37156.5	ok:-37156.5
numeric	-6191500908870922.99	ok:-6191500908870922.99
numeric	24377412.6374331377	ok:24377412.6374331377
numeric	0.6	ok:0.6
numeric	26869687.32048164470	ok:26869687.32048164470
numeric	0.0	ok:0.0
numeric	8859235094882.68	ok:8859235094882.68
numeric	-51494.58	ok:-51494.58
numeric	0.98733761864	ok:0.98733761864
numeric	752	ok:752
numeric	20579494.298497306	ok:20579494.298497306
numeric	-152.55	ok:-152.55
numeric	-60658523	ok:-60658523
numeric	61557.335200	ok:61557.335200
numeric	-655922083.62203412	ok:-655922083.62203412
numeric	-3467533.81281803497	ok:-3467533.81281803497
numeric	99015221928.284493574	ok:99015221928.284493574
numeric	-6	ok:-6
numeric	-2	ok:-2
numeric	240.68	ok:240.68
numeric	8536017034270.59896	ok:8536017034270.59896
numeric	-655305013548.95215922	ok:-655305013548.95215922
numeric	-6.0862	ok:-6.0862
numeric	972268979711348.3239	ok:972268979711348.3239
numeric	-36518506.0620125234	ok:-36518506.0620125234
numeric	4077735120.869825	ok:4077735120.869825
numeric	68986.54	ok:68986.54
numeric	-5814273864152428.43	ok:-5814273864152428.43
numeric	-1994949	ok:-1994949
numeric	58.64	ok:58.64
numeric	93.7613	ok:93.7613
numeric	1	ok:1
numeric	-8842683426013878	ok:-8842683426013878
numeric	-407578892.9	ok:-407578892.9
numeric	-5230728500966.40	ok:-5230728500966.40
numeric	40.0635805780	ok:40.0635805780
numeric	90248163.84	ok:90248163.84
numeric(5,2)	1.234	ok:1.23
numeric(5,2)	1.235	ok:1.24
numeric(5,2)	-1.235	ok:-1.24
numeric(5,2)	999.994	ok:999.99
numeric(5,2)	999.995	err:22003:numeric field overflow
numeric(5,2)	0.001	ok:0.00
numeric(5,2)	12345	err:22003:numeric field overflow
numeric(5,2)	-999.99	ok:-999.99
numeric(5,2)	1e2	ok:100.00
numeric(3,0)	999.4	ok:999
numeric(3,0)	999.5	err:22003:numeric field overflow
numeric(3,0)	-0.5	ok:-1
numeric(3,0)	12.5	ok:13
numeric(2,2)	0.994	ok:0.99
numeric(2,2)	0.995	err:22003:numeric field overflow
numeric(2,2)	0.5	ok:0.50
numeric(2,2)	1	err:22003:numeric field overflow
date	2024-01-15	ok:2024-01-15
date	20240115	ok:2024-01-15
date	2024-02-29	ok:2024-02-29
date	2023-02-29	err:22008:date/time field value out of range: "2023-02-29"
date	2024-02-30	err:22008:date/time field value out of range: "2024-02-30"
date	2024-13-01	err:22008:date/time field value out of range: "2024-13-01"
date	2024-00-10	err:22008:date/time field value out of range: "2024-00-10"
date	0044-03-15 BC	ok:0044-03-15 BC
date	0001-01-01	ok:0001-01-01
date	0001-01-01 BC	ok:0001-01-01 BC
date	9999-12-31	ok:9999-12-31
date	10000-01-01	ok:10000-01-01
date	  2024-01-15  	ok:2024-01-15
date	2024-01-15 10:30:00	ok:2024-01-15
date	abc	err:22007:invalid input syntax for type date: "abc"
date		err:22007:invalid input syntax for type date: ""
date	2024-1-5	ok:2024-01-05
date	4714-11-24 BC	ok:4714-11-24 BC
date	4714-11-23 BC	err:22008:date out of range: "4714-11-23 BC"
date	5874897-12-31	ok:5874897-12-31
date	5874898-01-01	err:22008:date out of range: "5874898-01-01"
date	infinity	ok:infinity
date	-infinity	ok:-infinity
date	epoch	ok:1970-01-01
date	2024-01-15T10:30:00	ok:2024-01-15
date	2024-01-15 25:00:00	err:22008:date/time field value out of range: "2024-01-15 25:00:00"
date	1999-12-31	ok:1999-12-31
date	2000-01-01	ok:2000-01-01
date	1970-01-01	ok:1970-01-01
date	1900-03-01	ok:1900-03-01
date	8564-10-04	ok:8564-10-04
date	1982-12-12	ok:1982-12-12
date	7935-03-03	ok:7935-03-03
date	2571-10-10	ok:2571-10-10
date	2832-11-15 BC	ok:2832-11-15 BC
date	2033-11-06	ok:2033-11-06
date	6600-10-17 BC	err:22008:date out of range: "6600-10-17 BC"
date	0117-06-08	ok:0117-06-08
date	3450-04-25 BC	ok:3450-04-25 BC
date	3541-08-13	ok:3541-08-13
date	8715-02-25	ok:8715-02-25
date	8530-02-18	ok:8530-02-18
date	0901-02-13	ok:0901-02-13
date	5906-08-12 BC	err:22008:date out of range: "5906-08-12 BC"
date	1791-05-03	ok:1791-05-03
date	4398-08-17	ok:4398-08-17
date	2234-02-21	ok:2234-02-21
date	7256-09-25	ok:7256-09-25
date	8285-05-22	ok:8285-05-22
date	1864-04-06	ok:1864-04-06
date	8053-02-13	ok:8053-02-13
date	0347-12-13	ok:0347-12-13
date	9586-05-22	ok:9586-05-22
date	1345-06-23 BC	ok:1345-06-23 BC
date	4237-06-16 BC	ok:4237-06-16 BC
date	2607-03-10	ok:2607-03-10
date	8004-01-19	ok:8004-01-19
date	3215-07-09 BC	ok:3215-07-09 BC
date	3078-10-17	ok:3078-10-17
date	8787-02-02	ok:8787-02-02
date	4515-07-02	ok:4515-07-02
date	7397-08-06	ok:7397-08-06
date	7437-09-12	ok:7437-09-12
date	0766-05-11	ok:0766-05-11
date	3630-05-09	ok:3630-05-09
date	5028-07-03 BC	err:22008:date out of range: "5028-07-03 BC"
date	9850-03-15	ok:9850-03-15
date	6937-10-24 BC	err:22008:date out of range: "6937-10-24 BC"
date	8185-07-24	ok:8185-07-24
date	3061-08-12	ok:3061-08-12
time	10:30:00	ok:10:30:00
time	10:30	ok:10:30:00
time	10:30:00.123	ok:10:30:00.123
time	10:30:00.123456	ok:10:30:00.123456
time	10:30:00.1234565	ok:10:30:00.123456
time	10:30:00.1234575	ok:10:30:00.123458
time	24:00:00	ok:24:00:00
time	24:00:01	err:22008:date/time field value out of range: "24:00:01"
time	25:00	err:22008:date/time field value out of range: "25:00"
time	00:00:00	ok:00:00:00
time	23:59:59.999999	ok:23:59:59.999999
time	23:59:59.9999995	ok:24:00:00
time	 1:02:03 	ok:01:02:03
time	abc	err:22007:invalid input syntax for type time: "abc"
time	10:60:00	err:22008:date/time field value out of range: "10:60:00"
time	10:30:60	ok:10:31:00
time	2024-01-15 10:30:00	ok:10:30:00
time	10:30:00+05	ok:10:30:00
time	10:30:00Z	ok:10:30:00
time	103000	ok:10:30:00
time	allballs	ok:00:00:00
time	1030	ok:10:30:00
timestamp	2024-01-15 10:30:00	ok:2024-01-15 10:30:00
timestamp	2024-01-15T10:30:00.123456	ok:2024-01-15 10:30:00.123456
timestamp	2024-01-15 10:30:00.5	ok:2024-01-15 10:30:00.5
timestamp	2024-01-15	ok:2024-01-15 00:00:00
timestamp	2024-01-15 10:30	ok:2024-01-15 10:30:00
timestamp	2024-01-15 10:30:00Z	ok:2024-01-15 10:30:00
timestamp	2024-01-15 10:30:00+05:30	ok:2024-01-15 10:30:00
timestamp	2024-01-15 10:30:00-08	ok:2024-01-15 10:30:00
timestamp	2024-01-15 10:30:00+0530	ok:2024-01-15 10:30:00
timestamp	2024-01-15T10:30:00 +05:30	ok:2024-01-15 10:30:00
timestamp	2024-01-15 10:30:00 UTC	ok:2024-01-15 10:30:00
timestamp	2024-01-15 24:00:00	ok:2024-01-16 00:00:00
timestamp	2024-01-15 24:00:01	err:22008:date/time field value out of range: "2024-01-15 24:00:01"
timestamp	2024-02-30 10:00:00	err:22008:date/time field value out of range: "2024-02-30 10:00:00"
timestamp	0044-03-15 10:30:00 BC	ok:0044-03-15 10:30:00 BC
timestamp	2024-01-15 10:30:00.1234567	ok:2024-01-15 10:30:00.123457
timestamp	infinity	ok:infinity
timestamp	-infinity	ok:-infinity
timestamp	epoch	ok:1970-01-01 00:00:00
timestamp	abc	err:22007:invalid input syntax for type timestamp: "abc"
timestamp	2024-01-15 10:30:00+16	err:22009:time zone displacement out of range: "2024-01-15 10:30:00+16"
timestamp	2024-01-15 10:30:00-15:59	ok:2024-01-15 10:30:00
timestamp	20240115 103000	ok:2024-01-15 10:30:00
timestamp	20240115T103000	ok:2024-01-15 10:30:00
timestamp	1999-12-31 23:59:59.999999	ok:1999-12-31 23:59:59.999999
timestamp	4714-11-24 00:00:00 BC	ok:4714-11-24 00:00:00 BC
timestamp	4714-11-23 23:59:59 BC	err:22008:timestamp out of range: "4714-11-23 23:59:59 BC"
timestamp	2024-01-15 10:30:00+05:30:15	ok:2024-01-15 10:30:00
timestamp	2024-03-01 00:30:00+01	ok:2024-03-01 00:30:00
timestamp	0988-03-24 00:29:34	ok:0988-03-24 00:29:34
timestamp	8199-01-11 11:01:58.5	ok:8199-01-11 11:01:58.5
timestamp	0047-06-28 09:43:30.999999	ok:0047-06-28 09:43:30.999999
timestamp	4853-08-05 13:21:29.999999 BC	err:22008:timestamp out of range: "4853-08-05 13:21:29.999999 BC"
timestamp	1386-11-23 06:49:50.25	ok:1386-11-23 06:49:50.25
timestamp	9727-08-13 23:09:54.000001	ok:9727-08-13 23:09:54.000001
timestamp	1956-09-06 06:42:29	ok:1956-09-06 06:42:29
timestamp	5121-03-07 07:53:17.000001	ok:5121-03-07 07:53:17.000001
timestamp	4812-12-20 08:46:23.999999	ok:4812-12-20 08:46:23.999999
timestamp	2045-05-03 18:11:20.5 BC	ok:2045-05-03 18:11:20.5 BC
timestamp	3444-12-22 06:48:34.999999 BC	ok:3444-12-22 06:48:34.999999 BC
timestamp	0599-02-08 22:58:46.25	ok:0599-02-08 22:58:46.25
timestamp	5503-12-11 21:48:36.000001 BC	err:22008:timestamp out of range: "5503-12-11 21:48:36.000001 BC"
timestamp	2418-02-13 02:11:28.123 BC	ok:2418-02-13 02:11:28.123 BC
timestamp	0199-01-13 14:19:53.999999	ok:0199-01-13 14:19:53.999999
timestamp	2088-07-10 00:27:09.000001	ok:2088-07-10 00:27:09.000001
timestamp	7743-08-15 17:21:44	ok:7743-08-15 17:21:44
timestamp	2978-10-14 21:16:16.123	ok:2978-10-14 21:16:16.123
timestamp	4873-02-27 09:22:39.999999	ok:4873-02-27 09:22:39.999999
timestamp	7630-11-01 13:11:31.25 BC	err:22008:timestamp out of range: "7630-11-01 13:11:31.25 BC"
timestamp	4922-12-11 07:25:54	ok:4922-12-11 07:25:54
timestamp	6598-03-13 14:36:35.25	ok:6598-03-13 14:36:35.25
timestamp	4661-07-25 06:54:51.25 BC	ok:4661-07-25 06:54:51.25 BC
timestamp	2881-01-01 18:37:11	ok:2881-01-01 18:37:11
timestamp	7878-11-22 02:44:06.000001 BC	err:22008:timestamp out of range: "7878-11-22 02:44:06.000001 BC"
timestamp	5500-11-18 15:50:17.999999 BC	err:22008:timestamp out of range: "5500-11-18 15:50:17.999999 BC"
timestamp	6923-02-06 17:51:03.25 BC	err:22008:timestamp out of range: "6923-02-06 17:51:03.25 BC"
timestamp	0210-09-22 20:14:26.000001	ok:0210-09-22 20:14:26.000001
timestamp	8677-11-06 19:22:12	ok:8677-11-06 19:22:12
timestamp	9285-10-25 03:17:50.25	ok:9285-10-25 03:17:50.25
timestamp	4758-12-13 19:41:51.000001	ok:4758-12-13 19:41:51.000001
timestamp	4992-08-08 18:56:36.999999 BC	err:22008:timestamp out of range: "4992-08-08 18:56:36.999999 BC"
timestamp	5056-11-10 17:37:20.5	ok:5056-11-10 17:37:20.5
timestamp	8050-11-12 02:27:32.25 BC	err:22008:timestamp out of range: "8050-11-12 02:27:32.25 BC"
timestamp	4476-08-08 16:34:19	ok:4476-08-08 16:34:19
timestamp	9972-01-06 18:36:19.123	ok:9972-01-06 18:36:19.123
timestamp	7285-05-01 23:13:57.123	ok:7285-05-01 23:13:57.123
timestamp	5638-12-13 05:07:02.5 BC	err:22008:timestamp out of range: "5638-12-13 05:07:02.5 BC"
timestamp	9345-01-08 04:21:24.25 BC	err:22008:timestamp out of range: "9345-01-08 04:21:24.25 BC"
timestamp	4441-06-06 12:24:39.000001	ok:4441-06-06 12:24:39.000001
timestamptz	2024-01-15 10:30:00	ok:2024-01-15 10:30:00+00
timestamptz	2024-01-15T10:30:00.123456	ok:2024-01-15 10:30:00.123456+00
timestamptz	2024-01-15 10:30:00.5	ok:2024-01-15 10:30:00.5+00
timestamptz	2024-01-15	ok:2024-01-15 00:00:00+00
timestamptz	2024-01-15 10:30	ok:2024-01-15 10:30:00+00
timestamptz	2024-01-15 10:30:00Z	ok:2024-01-15 10:30:00+00
timestamptz	2024-01-15 10:30:00+05:30	ok:2024-01-15 05:00:00+00
timestamptz	2024-01-15 10:30:00-08	ok:2024-01-15 18:30:00+00
timestamptz	2024-01-15 10:30:00+0530	ok:2024-01-15 05:00:00+00
timestamptz	2024-01-15T10:30:00 +05:30	ok:2024-01-15 05:00:00+00
timestamptz	2024-01-15 10:30:00 UTC	ok:2024-01-15 10:30:00+00
timestamptz	2024-01-15 24:00:00	ok:2024-01-16 00:00:00+00
timestamptz	2024-01-15 24:00:01	err:22008:date/time field value out of range: "2024-01-15 24:00:01"
timestamptz	2024-02-30 10:00:00	err:22008:date/time field value out of range: "2024-02-30 10:00:00"
timestamptz	0044-03-15 10:30:00 BC	ok:0044-03-15 10:30:00+00 BC
timestamptz	2024-01-15 10:30:00.1234567	ok:2024-01-15 10:30:00.123457+00
timestamptz	infinity	ok:infinity
timestamptz	-infinity	ok:-infinity
timestamptz	epoch	ok:1970-01-01 00:00:00+00
timestamptz	abc	err:22007:invalid input syntax for type timestamp with time zone: "abc"
timestamptz	2024-01-15 10:30:00+16	err:22009:time zone displacement out of range: "2024-01-15 10:30:00+16"
timestamptz	2024-01-15 10:30:00-15:59	ok:2024-01-16 02:29:00+00
timestamptz	20240115 103000	ok:2024-01-15 10:30:00+00
timestamptz	20240115T103000	ok:2024-01-15 10:30:00+00
timestamptz	1999-12-31 23:59:59.999999	ok:1999-12-31 23:59:59.999999+00
timestamptz	4714-11-24 00:00:00 BC	ok:4714-11-24 00:00:00+00 BC
timestamptz	4714-11-23 23:59:59 BC	err:22008:timestamp out of range: "4714-11-23 23:59:59 BC"
timestamptz	2024-01-15 10:30:00+05:30:15	ok:2024-01-15 04:59:45+00
timestamptz	2024-03-01 00:30:00+01	ok:2024-02-29 23:30:00+00
timestamptz	0988-03-24 00:29:34	ok:0988-03-24 00:29:34+00
timestamptz	8199-01-11 11:01:58.5	ok:8199-01-11 11:01:58.5+00
timestamptz	0047-06-28 09:43:30.999999	ok:0047-06-28 09:43:30.999999+00
timestamptz	4853-08-05 13:21:29.999999 BC	err:22008:timestamp out of range: "4853-08-05 13:21:29.999999 BC"
timestamptz	1386-11-23 06:49:50.25	ok:1386-11-23 06:49:50.25+00
timestamptz	9727-08-13 23:09:54.000001	ok:9727-08-13 23:09:54.000001+00
timestamptz	1956-09-06 06:42:29	ok:1956-09-06 06:42:29+00
timestamptz	5121-03-07 07:53:17.000001	ok:5121-03-07 07:53:17.000001+00
timestamptz	4812-12-20 08:46:23.999999	ok:4812-12-20 08:46:23.999999+00
timestamptz	2045-05-03 18:11:20.5 BC	ok:2045-05-03 18:11:20.5+00 BC
timestamptz	3444-12-22 06:48:34.999999 BC	ok:3444-12-22 06:48:34.999999+00 BC
timestamptz	0599-02-08 22:58:46.25	ok:0599-02-08 22:58:46.25+00
timestamptz	5503-12-11 21:48:36.000001 BC	err:22008:timestamp out of range: "5503-12-11 21:48:36.000001 BC"
timestamptz	2418-02-13 02:11:28.123 BC	ok:2418-02-13 02:11:28.123+00 BC
timestamptz	0199-01-13 14:19:53.999999	ok:0199-01-13 14:19:53.999999+00
timestamptz	2088-07-10 00:27:09.000001	ok:2088-07-10 00:27:09.000001+00
timestamptz	7743-08-15 17:21:44	ok:7743-08-15 17:21:44+00
timestamptz	2978-10-14 21:16:16.123	ok:2978-10-14 21:16:16.123+00
timestamptz	4873-02-27 09:22:39.999999	ok:4873-02-27 09:22:39.999999+00
timestamptz	7630-11-01 13:11:31.25 BC	err:22008:timestamp out of range: "7630-11-01 13:11:31.25 BC"
timestamptz	4922-12-11 07:25:54	ok:4922-12-11 07:25:54+00
timestamptz	6598-03-13 14:36:35.25	ok:6598-03-13 14:36:35.25+00
timestamptz	4661-07-25 06:54:51.25 BC	ok:4661-07-25 06:54:51.25+00 BC
timestamptz	2881-01-01 18:37:11	ok:2881-01-01 18:37:11+00
timestamptz	7878-11-22 02:44:06.000001 BC	err:22008:timestamp out of range: "7878-11-22 02:44:06.000001 BC"
timestamptz	5500-11-18 15:50:17.999999 BC	err:22008:timestamp out of range: "5500-11-18 15:50:17.999999 BC"
timestamptz	6923-02-06 17:51:03.25 BC	err:22008:timestamp out of range: "6923-02-06 17:51:03.25 BC"
timestamptz	0210-09-22 20:14:26.000001	ok:0210-09-22 20:14:26.000001+00
timestamptz	8677-11-06 19:22:12	ok:8677-11-06 19:22:12+00
timestamptz	9285-10-25 03:17:50.25	ok:9285-10-25 03:17:50.25+00
timestamptz	4758-12-13 19:41:51.000001	ok:4758-12-13 19:41:51.000001+00
timestamptz	4992-08-08 18:56:36.999999 BC	err:22008:timestamp out of range: "4992-08-08 18:56:36.999999 BC"
timestamptz	5056-11-10 17:37:20.5	ok:5056-11-10 17:37:20.5+00
timestamptz	8050-11-12 02:27:32.25 BC	err:22008:timestamp out of range: "8050-11-12 02:27:32.25 BC"
timestamptz	4476-08-08 16:34:19	ok:4476-08-08 16:34:19+00
timestamptz	9972-01-06 18:36:19.123	ok:9972-01-06 18:36:19.123+00
timestamptz	7285-05-01 23:13:57.123	ok:7285-05-01 23:13:57.123+00
timestamptz	5638-12-13 05:07:02.5 BC	err:22008:timestamp out of range: "5638-12-13 05:07:02.5 BC"
timestamptz	9345-01-08 04:21:24.25 BC	err:22008:timestamp out of range: "9345-01-08 04:21:24.25 BC"
timestamptz	4441-06-06 12:24:39.000001	ok:4441-06-06 12:24:39.000001+00
interval	1 day	ok:1 day
interval	15 SECONDS	ok:00:00:15
interval	2 hours 30 minutes	ok:02:30:00
interval	1 year 2 mons	ok:1 year 2 mons
interval	1:30:00	ok:01:30:00
interval	1:30	ok:01:30:00
interval	1 day 02:00:00	ok:1 day 02:00:00
interval	-1 week	ok:-7 days
interval	P1DT2H	ok:1 day 02:00:00
interval	@ 1 minute ago	ok:-00:01:00
interval	1 year 2 mons 3 days 04:05:06.5	ok:1 year 2 mons 3 days 04:05:06.5
interval	-00:00:01	ok:-00:00:01
interval	0	ok:00:00:00
interval	00:00:00	ok:00:00:00
interval	1 day -01:00:00	ok:1 day -01:00:00
interval	-1 day +01:00:00	ok:-1 days +01:00:00
interval	1.5 days	ok:1 day 12:00:00
interval	1.5 months	ok:1 mon 15 days
interval	1.5 years	ok:1 year 6 mons
interval	0.5 weeks	ok:3 days 12:00:00
interval	1 decade	ok:10 years
interval	2 centuries	ok:200 years
interval	1 millennium	ok:1000 years
interval	10s	ok:00:00:10
interval	5 ms	ok:00:00:00.005
interval	7 us	ok:00:00:00.000007
interval	3 h	ok:03:00:00
interval	4 d	ok:4 days
interval	2 w	ok:14 days
interval	3 mon	ok:3 mons
interval	2 y	ok:2 years
interval	1 hr	ok:01:00:00
interval	1 sec	ok:00:00:01
interval	1 secs	ok:00:00:01
interval	2 mins	ok:00:02:00
interval	1 min	ok:00:01:00
interval	-1:30:00	ok:-01:30:00
interval	-1:30	ok:-01:30:00
interval	1 day ago	ok:-1 days
interval	1 year ago	ok:-1 years
interval	-1 year -2 mons	ok:-1 years -2 mons
interval	-1 year 2 mons	ok:-10 mons
interval	1 mon -1 day	ok:1 mon -1 days
interval	12:30:45.123456	ok:12:30:45.123456
interval	100 hours	ok:100:00:00
interval	3 days 100:00:00	ok:3 days 100:00:00
interval	1 microsecond	ok:00:00:00.000001
interval	1 millisecond	ok:00:00:00.001
interval	abc	err:22007:invalid input syntax for type interval: "abc"
interval		err:22007:invalid input syntax for type interval: ""
interval	1 fortnight	err:22007:invalid input syntax for type interval: "1 fortnight"
interval	P1Y2M3DT4H5M6S	ok:1 year 2 mons 3 days 04:05:06
interval	P1.5D	ok:1 day 12:00:00
interval	PT1.5S	ok:00:00:01.5
interval	P2W	ok:14 days
interval	-P1D	err:22007:invalid input syntax for type interval: "-P1D"
interval	P-1D	ok:-1 days
interval	PT36H	ok:36:00:00
interval	2 years 1 second	ok:2 years 00:00:01
interval	1 day 2 hours 3 minutes 4 seconds	ok:1 day 02:03:04
interval	1.25 hours	ok:01:15:00
interval	0.1 seconds	ok:00:00:00.1
interval	1 day 1.5 hours	ok:1 day 01:30:00
interval	3 mons 2 weeks	ok:3 mons 14 days
interval	5	ok:00:00:05
interval	1.5	ok:00:00:01.5
interval	-5	ok:-00:00:05
jsonb	{"a": 1, "b": [1, 2]}	ok:{"a": 1, "b": [1, 2]}
jsonb	{"b":1,"a":2}	ok:{"a": 2, "b": 1}
jsonb	{"aa":1,"b":2,"a":3}	ok:{"a": 3, "b": 2, "aa": 1}
jsonb	{"a":1,"a":2}	ok:{"a": 2}
jsonb	[1,2,3]	ok:[1, 2, 3]
jsonb	[]	ok:[]
jsonb	{}	ok:{}
jsonb	"str"	ok:"str"
jsonb	1	ok:1
jsonb	-0	ok:0
jsonb	1.50	ok:1.50
jsonb	1e3	ok:1000
jsonb	1E-2	ok:0.01
jsonb	12345678901234567890	ok:12345678901234567890
jsonb	true	ok:true
jsonb	false	ok:false
jsonb	null	ok:null
jsonb	 { "x" : [ true , null ] } 	ok:{"x": [true, null]}
jsonb	"a\"b\\c\/d"	ok:"a\"b\\c/d"
jsonb	"\u00e9\u0041"	ok:"éA"
jsonb	"\ud83d\ude00"	ok:"😀"
jsonb	"\u0001"	ok:"\u0001"
jsonb	"\b\f\n\r\t"	ok:"\b\f\n\r\t"
jsonb	{"nested":{"z":1,"y":{"b":[],"a":{}}}}	ok:{"nested": {"y": {"a": {}, "b": []}, "z": 1}}
jsonb	[1,	err:22P02:invalid input syntax for type json
jsonb	{"a"}	err:22P02:invalid input syntax for type json
jsonb	{a:1}	err:22P02:invalid input syntax for type json
jsonb	'x'	err:22P02:invalid input syntax for type json
jsonb	01	err:22P02:invalid input syntax for type json
jsonb	1.	err:22P02:invalid input syntax for type json
jsonb	.5	err:22P02:invalid input syntax for type json
jsonb	tru	err:22P02:invalid input syntax for type json
jsonb	"\u0000"	err:22P05:unsupported Unicode escape sequence
jsonb	[1 2]	err:22P02:invalid input syntax for type json
jsonb		err:22P02:invalid input syntax for type json
jsonb	"é"	ok:"é"
jsonb	{"": 1, "a": null}	ok:{"": 1, "a": null}
jsonb	-1.5e+2	ok:-150
jsonb	0.0	ok:0.0
jsonb	1e-10	ok:0.0000000001
jsonb	{"b": 1, "a": 2, "ab": 3, "ba": 4}	ok:{"a": 2, "b": 1, "ab": 3, "ba": 4}
bytea	\x0102ff	ok:\x0102ff
bytea	\x	ok:\x
bytea	\xDEADbeef	ok:\xdeadbeef
bytea	\x01 02	ok:\x0102
bytea	\x0	err:22023:invalid hexadecimal data: odd number of digits
bytea	\xzz	err:22023:invalid hexadecimal digit: "z"
bytea	abc	ok:\x616263
bytea	a\\b	ok:\x615c62
bytea	\001\377	ok:\x01ff
bytea	\	err:22P02:invalid input syntax for type bytea
bytea	\x 0a0b 	ok:\x0a0b
bytea		ok:\x
bytea	\q	err:22P02:invalid input syntax for type bytea
int4[]	{1,2,NULL}	ok:{1,2,NULL}
int4[]	{}	ok:{}
int4[]	{ 1 , 2 }	ok:{1,2}
int4[]	{1,null,NULL}	ok:{1,NULL,NULL}
int4[]	{"3"}	ok:{3}
int4[]	{1,a}	err:22P02:invalid input syntax for type integer: "a"
int4[]	1,2	err:22P02:malformed array literal: "1,2"
int4[]	{1,2	err:22P02:malformed array literal: "{1,2"
int4[]	{{1,2},{3,4}}	ok:{{1,2},{3,4}}
text[]	{a,b}	ok:{a,b}
text[]	{"a b","","NULL",NULL}	ok:{"a b","","NULL",NULL}
text[]	{"q\"uote","back\\slash"}	ok:{"q\"uote","back\\slash"}
text[]	{ a b , c }	ok:{"a b",c}
text[]	{"a,b","{x}"}	ok:{"a,b","{x}"}
text[]	{null,Null}	ok:{NULL,NULL}
text[]	{abc,""}	ok:{abc,""}
"""#
