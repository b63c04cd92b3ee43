import os,subprocess as sp,sys,random,statistics as st,struct,time
O=os.environ["OUT"];G=os.path.abspath(".gpu");T=os.getcwd()
def sh(c):
    r=sp.run(c,shell=True,capture_output=True,text=True);return r.stdout+r.stderr
log=open(O+"/calls.txt","w")
def P(*a):
    s=" ".join(str(x) for x in a);print(s);log.write(s+"\n");log.flush()
inc=sh("ls -d /usr/local/cuda/include/cupti.h /usr/local/cuda/extras/CUPTI/include/cupti.h 2>/dev/null").split()
P("cupti.h:",inc)
ci=os.path.dirname(inc[0]);cl=sh("dirname $(find /usr/local/cuda/ -name 'libcupti.so*' | head -1)").strip()
P("libcupti:",sh("ls -la "+cl+"/libcupti*"))
P(sh("make -C inject libgpuprobe_cupti.so CUPTI_INC=%s CUPTI_LIB=%s 2>&1|tail -3"%(ci,cl)))
P(sh("nvcc -O2 -arch=sm_90 -o %s/cc %s/cuda_calls.cu -lcuda 2>&1"%(G,G)))
P(sh("nvcc -O2 -o %s/pr %s/probe.cu -I%s -L%s -lcupti -lcuda -Xlinker -rpath -Xlinker %s 2>&1"%(G,G,ci,cl,cl)))
P(sh("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version|tail -1"))
P(sh("timeout 60 %s/pr"%G))
L=T+"/inject/libgpuprobe_cupti.so"
C={"untraced":None,"traced":{},"allapi":{"GPUPROBE_CUDA_API":"all"},"noruntime":{"GPUPROBE_CUDA_RUNTIME":"0"},
"noapi":{"GPUPROBE_CUDA_LEAVE_OUT":"api"},"nokernels":{"GPUPROBE_CUDA_LEAVE_OUT":"kernels"},
"nosyncs":{"GPUPROBE_CUDA_LEAVE_OUT":"syncs"},"cbsyncs":{"GPUPROBE_CUDA_SYNCS":"callbacks"},
"noclock":{"GPUPROBE_CUDA_CLOCK_CHECK":"0"},
"subscribed":{"GPUPROBE_CUDA_LEAVE_OUT":"kernels,api,syncs,copies","GPUPROBE_CUDA_CLOCK_CHECK":"0"}}
S={};R=int(os.environ.get("ROUNDS","5"));t0=time.time();cnt={}
for r in range(R):
    if time.time()-t0>float(os.environ.get("BUDGET_S","300")):P("budget: rounds",r);break
    ks=list(C);ks=ks[r%len(ks):]+ks[:r%len(ks)]
    for c in ks:
        e=dict(os.environ);ev="/tmp/ev-%s-%d"%(c,r)
        if C[c] is not None:
            e.update(C[c]);e["CUDA_INJECTION64_PATH"]=L;e["GPUPROBE_APP_EVENTS"]=ev;open(ev,"w").close()
        o=sp.run([G+"/cc",os.environ.get("N","20000")],env=e,capture_output=True,text=True,timeout=120).stdout
        for l in o.split("\n"):
            f=l.split()
            if len(f)>3 and f[0]=="cuda_calls":S.setdefault((f[1],c),[]).append(float(f[3]))
        if C[c] is not None and os.path.exists(ev):
            b=open(ev,"rb").read();d={}
            for i in range(0,len(b)-135,136):
                m,v,a,z,ty,k=struct.unpack_from("<HBBHHI",b,i);d[ty]=d.get(ty,0)+1
                if ty==6 and r==0:P(c,"note:",b[i+72:i+136].split(b"\0")[0].decode(errors="replace"))
            cnt.setdefault(c,[]).append(d);os.unlink(ev)
        P("round",r+1,c,int(time.time()-t0),"s")
def iv(x):
    g=random.Random(1);m=sorted(st.median(g.choices(x,k=len(x))) for _ in range(2000))
    return "%.4g [%.4g, %.4g] n=%d"%(st.median(x),m[50],m[1949],len(x))
ks=sorted({k for k,_ in S},key=lambda k:[a for a,_ in S].index(k))
for k in ks:
    P("==",k,"untraced ns/call",iv(S.get((k,"untraced"),[0])))
    for c in C:
        if c=="untraced" or (k,c) not in S:continue
        u=S[(k,"untraced")];x=S[(k,c)];n=min(len(u),len(x))
        P("  %-10s %-28s - untraced %s"%(c,iv(x),iv([x[i]-u[i] for i in range(n)])))
P("records by type (1 kernel 2 memcpy 3 memset 4 sync 5 api 6 note 7 device 8 clock 9 overhead 10 name), per run:")
for c,v in cnt.items():P(" ",c,v)
open(O+"/samples.txt","w").write("".join("%s-%s %g\n"%(k,c,y) for (k,c),x in S.items() for y in x))
