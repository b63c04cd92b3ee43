import os,subprocess as sp,random,statistics as st,struct,time
O=os.environ["OUT"];T=os.getcwd();log=open(O+"/torch.txt","w")
def P(*a):
    s=" ".join(str(x) for x in a);print(s);log.write(s+"\n");log.flush()
def sh(c):
    r=sp.run(c,shell=True,capture_output=True,text=True);return r.stdout+r.stderr
P(sh("git apply .gpu/fix.diff && git diff --stat; make -C inject libgpuprobe_cupti.so CUPTI_LIB=/usr/local/cuda/targets/x86_64-linux/lib 2>&1|tail -2"))
L=T+"/inject/libgpuprobe_cupti.so";ST=os.environ.get("STEPS","600")
C={"untraced":None,"actsyncs":{"GPUPROBE_CUDA_SYNCS":"activity"},"cbsyncs":{"GPUPROBE_CUDA_SYNCS":"callbacks"}}
S={};t0=time.time();R=int(os.environ.get("ROUNDS","5"))
for r in range(R):
    if time.time()-t0>float(os.environ.get("BUDGET_S","330")):P("budget: rounds",r);break
    ks=list(C);ks=ks[r%len(ks):]+ks[:r%len(ks)]
    for c in ks:
        e=dict(os.environ);ev="/tmp/ev-%s-%d"%(c,r)
        if C[c] is not None:
            e.update(C[c]);e["CUDA_INJECTION64_PATH"]=L;e["GPUPROBE_APP_EVENTS"]=ev;open(ev,"w").close()
        o=sp.run(["python3","scripts/examples/torch_cost.py","launch",ST],env=e,capture_output=True,text=True,timeout=150)
        ms=None
        for l in (o.stdout+o.stderr).split("\n"):
            f=l.split()
            if f and f[0]=="torch_cost":ms=float(f[f.index("ms_per_step")+1])
        if ms is None:P(c,r,"no result",o.stderr[-500:]);continue
        S.setdefault(c,[]).append(ms);d={};sy={}
        if C[c] is not None:
            b=open(ev,"rb").read()
            for i in range(0,len(b)-135,136):
                m,v,a,z,ty,k=struct.unpack_from("<HBBHHI",b,i);d[ty]=d.get(ty,0)+1
                if ty==4:
                    s=struct.unpack_from("<I",b,i+28)[0];key="k%d%s"%(k,"-nostream" if s==0xffffffff else "");sy[key]=sy.get(key,0)+1
                if ty==6:P(c,r+1,"note:",b[i+72:i+136].split(b"\0")[0].decode(errors="replace"))
            os.unlink(ev)
        P("round",r+1,c,ms,"ms/step",int(time.time()-t0),"s",d,"syncs (kind 0 other 1 device 2 stream 3 event 4 stream-wait):",sy)
def iv(x):
    g=random.Random(1);m=sorted(st.median(g.choices(x,k=len(x))) for _ in range(2000))
    return "%.4g [%.4g, %.4g] n=%d"%(st.median(x),m[50],m[1949],len(x))
for c in C:P("%-9s ms/step %s"%(c,iv(S.get(c,[0]))))
for a,b in (("actsyncs","untraced"),("cbsyncs","untraced"),("cbsyncs","actsyncs")):
    n=min(len(S.get(a,[])),len(S.get(b,[])))
    if n:P("%s / %s %s"%(a,b,iv([S[a][i]/S[b][i] for i in range(n)])))
open(O+"/samples.txt","w").write("".join("launch-%s %g\n"%(c,y) for c,x in S.items() for y in x))
